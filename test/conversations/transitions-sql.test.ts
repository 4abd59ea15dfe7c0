import { changeStatus, conversationIdOf, outboundAnswerStatement, recordInbound, type StatusChange } from '../../src/db/conversations';
import { endDueSnoozes } from '../../src/db/conversation-clocks';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import {
  CONVERSATION_HAPPENINGS,
  CONVERSATION_TRANSITIONS,
  type ConversationClocks,
  type ConversationHappening,
  conversationAfter,
} from '../../src/domain/conversation-transitions';
import { uniqueName } from '../support/helpers';
import { FIRST, AT, UNTIL, STATES } from './states';

/*
 * The statements that move a conversation, on PostgreSQL (no Temporal), for every cell of the transition
 * table: each happening from each state, the row read back equal to what the table says
 * (conversationAfter), and what each statement reports (opened, waiting started, changed, its event).
 */

const BEFORE: Record<string, ConversationClocks | null> = {
  ...STATES,
  'snoozed, not due': { status: 'snoozed', snoozedUntil: UNTIL, waitingSince: null, firstInboundAt: null },
};

const SENDER = '+15550000000';
const CHANGES: Partial<Record<ConversationHappening, StatusChange>> = { snooze: { to: 'snoozed', until: UNTIL }, close: { to: 'closed' }, reopen: { to: 'open' } };

let prisma: Prisma;
beforeAll(() => {
  prisma = createPrisma(process.env.TEST_DATABASE_URL!, 2);
});
afterAll(() => prisma.$disconnect());

/** A client of its own, and its conversation on SENDER as `before` says (none: no row). */
async function conversationIn(before: ConversationClocks | null) {
  const scope = { business: uniqueName('conv-sql'), ownerId: 'u1' };
  const client = await prisma.client.create({ data: { ...scope, id: 'c1' } });
  const id = conversationIdOf(client.pk, SENDER);
  if (before) await prisma.conversation.create({ data: { id, ...scope, clientPk: client.pk, sender: SENDER, ...before, lastActivityAt: FIRST, createdAt: FIRST, updatedAt: FIRST } });
  return { scope, clientPk: client.pk, id };
}

async function clocksOf(id: string): Promise<ConversationClocks | null> {
  return prisma.conversation.findUnique({ where: { id }, select: { status: true, snoozedUntil: true, waitingSince: true, firstInboundAt: true } });
}

/** Runs the statement of `happening` on the conversation; what it reported. */
async function happen(happening: ConversationHappening, at: { scope: { business: string; ownerId: string }; clientPk: string; id: string }): Promise<Record<string, unknown>> {
  const { scope, clientPk, id } = at;
  if (happening === 'text' || happening === 'keyword') {
    const inbound = { id, ...scope, clientPk, sender: SENDER, at: AT, keyword: happening === 'keyword' };
    const effect = await prisma.$transaction((tx) => recordInbound(tx, inbound));
    return { opened: effect.opened, waitingStarted: effect.waitingStarted };
  }
  if (happening === 'answer') {
    await prisma.$executeRaw`WITH changed AS (SELECT 1) ${outboundAnswerStatement(scope, { conversationId: id, clientPk, sender: SENDER }, AT)}`;
    return {};
  }
  if (happening === 'snoozeEnds') return { reopened: (await prisma.$transaction((tx) => endDueSnoozes(tx, clientPk, AT))).map((row) => row.id) };
  const result = await prisma.$transaction((tx) => changeStatus(tx, scope, id, CHANGES[happening]!, AT));
  if (result === null) return { found: false };
  return 'refused' in result ? { refused: true } : { changed: result.changed, event: result.event };
}

/** What the statement should report, from the table. */
function reportOf(happening: ConversationHappening, before: ConversationClocks | null, id: string): Record<string, unknown> {
  const outcome = conversationAfter(before, happening, AT, CHANGES[happening]?.to === 'snoozed' ? UNTIL : null);
  const moved = typeof outcome === 'object' ? outcome : null;
  if (happening === 'text' || happening === 'keyword') return { opened: moved?.event === 'conversation.opened', waitingStarted: happening === 'text' && !before?.waitingSince };
  if (happening === 'answer') return {};
  if (happening === 'snoozeEnds') return { reopened: moved ? [id] : [] };
  if (outcome === 'not applicable') return { found: false };
  return outcome === 'refused' ? { refused: true } : { changed: moved !== null, event: moved?.event ?? null };
}

const CASES = CONVERSATION_HAPPENINGS.flatMap((happening) => Object.keys(BEFORE).map((state) => [happening, state] as const));

test('the cases cover every cell of the table', () => {
  const covered = new Set(CASES.map(([happening, state]) => `${happening}/${BEFORE[state]?.status ?? 'none'}`));
  const cells = Object.entries(CONVERSATION_TRANSITIONS).flatMap(([happening, cells]) => Object.keys(cells).map((state) => `${happening}/${state}`));
  expect(cells.filter((cell) => !covered.has(cell))).toEqual([]);
});

test.each(CASES)('%s on a conversation %s: the row and the report are the table\'s', async (happening, state) => {
  const before = BEFORE[state];
  const at = await conversationIn(before);
  const report = await happen(happening, at);
  const outcome = conversationAfter(before, happening, AT, happening === 'snooze' ? UNTIL : null);
  expect({ row: await clocksOf(at.id), report }).toEqual({ row: typeof outcome === 'object' ? outcome.after : before, report: reportOf(happening, before, at.id) });
});

test('a snooze to the date it has already writes nothing', async () => {
  const at = await conversationIn({ ...BEFORE.snoozed!, snoozedUntil: UNTIL });
  const result = await prisma.$transaction((tx) => changeStatus(tx, at.scope, at.id, { to: 'snoozed', until: UNTIL }, AT));
  expect(result).toMatchObject({ changed: false, event: null });
  expect((await prisma.conversation.findUnique({ where: { id: at.id } }))!.updatedAt).toEqual(FIRST);
});

