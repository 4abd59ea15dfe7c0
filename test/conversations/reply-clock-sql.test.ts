import { randomUUID } from 'node:crypto';
import { clockedConversationsBefore, markOverdue, replyClockApplies, waitingUnderReplyClock } from '../../src/db/conversation-clocks';
import { conversationIdOf } from '../../src/db/conversations';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import { awaitsAnswer, clockHolder, type ConversationWait, conversationClock, latestDecision, replyClockOf } from '../../src/domain/reply-clock';
import { uniqueName } from '../support/helpers';
import { DECISIONS, HOLDERS, NOW, SETTINGS, WAITING, WAITS } from './reply-clock-cases';

/*
 * The statements that say which conversations hold a clock, on PostgreSQL (no Temporal), for every row of
 * the rules' tables (src/domain/reply-clock.ts): whether a reply clock applies to the client, the client's
 * run's conversations waiting under it (with whose hours count), the reconciler's scan, and the overdue
 * report's compare-and-set each agree with the pure functions.
 */

let prisma: Prisma;
beforeAll(() => {
  prisma = createPrisma(process.env.TEST_DATABASE_URL!, 2);
});
afterAll(() => prisma.$disconnect());

const FAR = new Date('2100-01-01T00:00:00.000Z');
const CLOCK = { next_response_within: 'PT1H', working_hours: true };
const sortedIds = (n: number) => Array.from({ length: n }, () => randomUUID()).sort();

/** A client of its own, with one conversation as `wait` says. */
async function clientWith(wait: ConversationWait) {
  const scope = { business: uniqueName('clock-sql'), ownerId: 'u1' };
  const client = await prisma.client.create({ data: { ...scope, id: 'c1' } });
  const id = conversationIdOf(client.pk, '+15550000000');
  const snoozedUntil = wait.status === 'snoozed' ? FAR : null;
  await prisma.conversation.create({ data: { id, ...scope, clientPk: client.pk, sender: '+15550000000', ...wait, snoozedUntil, lastActivityAt: WAITING } });
  return { scope, clientPk: client.pk, id };
}

/** The client routed by a policy with these settings, at `decidedAt`. */
async function decided(at: Awaited<ReturnType<typeof clientWith>>, settings: object | null, decidedAt = WAITING, id = randomUUID()) {
  const policy = await prisma.routingPolicy.create({ data: { ...at.scope, id: uniqueName('policy'), settings: settings ?? {} } });
  await prisma.routingDecision.create({ data: { id, ...at.scope, policyPk: policy.pk, version: 1, clientPk: at.clientPk, status: 'assigned', decidedAt } });
}

const scanned = async (business: string) => (await clockedConversationsBefore(prisma, { before: FAR, business }, undefined, 100)).map((c) => c.id);

const COMBINATIONS = SETTINGS.flatMap(([policy, settings]) => WAITS.map(([conversation, wait]) => [policy, conversation, settings, wait] as const));

test.each(COMBINATIONS)('%s, a conversation %s: every statement agrees with the rules', async (_policy, _conversation, settings, wait) => {
  const clock = replyClockOf(settings);
  const expected = conversationClock(wait, clock);
  const at = await clientWith(wait);
  await decided(at, settings);
  const waiting = await waitingUnderReplyClock(prisma, at.clientPk, NOW);
  expect({
    applies: await replyClockApplies(prisma, at.clientPk),
    waiting: waiting.map(({ id, within, workingHours }) => ({ id, within, workingHours })),
    scanned: await scanned(at.scope.business),
    marked: (await prisma.$transaction((tx) => markOverdue(tx, at.id, wait.waitingSince ?? WAITING, NOW))) !== null,
  }).toEqual({
    applies: clock !== null,
    waiting: expected === 'reply' ? [{ id: at.id, ...clock }] : [],
    scanned: expected === null ? [] : [at.id],
    marked: awaitsAnswer(wait),
  });
});

test.each(DECISIONS)('the latest of the client\'s decisions (%s) says whether a clock applies', async (_name, decisions) => {
  const at = await clientWith({ status: 'open', waitingSince: WAITING, overdueFor: null });
  const ids = sortedIds(decisions.length);
  for (const [i, d] of decisions.entries()) await decided(at, d.clock ? CLOCK : null, d.decidedAt, ids[i]);
  const latest = latestDecision(decisions.map((d, i) => ({ ...d, id: ids[i] })));
  expect({ applies: await replyClockApplies(prisma, at.clientPk), scanned: await scanned(at.scope.business) }).toEqual({
    applies: latest?.clock ?? false,
    scanned: latest?.clock ? [at.id] : [],
  });
});

test.each(HOLDERS)('the clock counts in its holder\'s hours (%s)', async (_name, assignments) => {
  const at = await clientWith({ status: 'open', waitingSince: WAITING, overdueFor: null });
  await decided(at, CLOCK);
  const ids = sortedIds(assignments.length);
  for (const [i, a] of assignments.entries()) {
    const agent = await prisma.agent.create({ data: { ...at.scope, id: `agent-${i}`, timezone: `Zone/${i}`, workingHours: a.hours ?? undefined } });
    await prisma.assignment.create({ data: { id: ids[i], clientPk: at.clientPk, agentPk: agent.pk, status: a.status, activeSlot: a.status === 'active' ? true : null, dtUntil: a.dtUntil, createdAt: a.createdAt, workflowId: 'wf' } });
  }
  const holder = clockHolder(assignments.map((a, i) => ({ ...a, id: ids[i], timezone: `Zone/${i}` })), NOW);
  const [waiting] = await waitingUnderReplyClock(prisma, at.clientPk, NOW);
  expect({ hours: waiting.holderHours, timezone: waiting.holderTimezone }).toEqual({ hours: holder?.hours ?? null, timezone: holder?.timezone ?? null });
});
