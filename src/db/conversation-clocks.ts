import { Prisma as Db } from '../generated/prisma/client';
import { clockHolder, conversationClock, type ConversationWait, REPLY_CLOCK_SETTING, type ReplyClock, replyClockOf } from '../domain/reply-clock';
import type { ConversationRow } from '../views/conversation';
import { transitionAssignments } from './conversation-transitions';
import { SELECT_ROW } from './conversations';
import type { Prisma } from './prisma';

/*
 * The clocks of conversations (docs/conversations.md): snoozes ending and reply clocks coming due, as the
 * client's run and the reconciler read them. Which conversations hold a clock is src/domain/reply-clock.ts:
 * the client's run loads its rows and asks it; the reconciler's scan says it in SQL
 * (test/conversations/reply-clock-sql.test.ts runs every statement for every row of the rule's tables).
 */

type Tx = Db.TransactionClient;
const { sql } = Db;

/** The conversations of a client whose snooze has ended by `now`, opened again; the rows after. */
export async function endDueSnoozes(tx: Tx, clientPk: string, now: Date): Promise<ConversationRow[]> {
  const ids = await tx.$queryRaw<{ id: string }[]>`
    UPDATE conversations AS c SET ${transitionAssignments('snoozeEnds', { at: now }, ['snoozed'])}, updated_at = ${now}
     WHERE client_pk = ${clientPk}::uuid AND status = 'snoozed' AND snoozed_until <= ${now}
    RETURNING id`;
  if (ids.length === 0) return [];
  return tx.$queryRaw<ConversationRow[]>`${SELECT_ROW} WHERE c.id = ANY(${ids.map((r) => r.id)}::uuid[]) ORDER BY c.snoozed_until, c.id`;
}

/** When each snoozed conversation of the client wakes (ids and dates only: the client's run holds them). */
export async function snoozesOf(db: Prisma | Tx, clientPk: string): Promise<{ conversationId: string; until: Date }[]> {
  return db.$queryRaw<{ conversationId: string; until: Date }[]>`
    SELECT id AS "conversationId", snoozed_until AS until FROM conversations WHERE client_pk = ${clientPk}::uuid AND status = 'snoozed' ORDER BY snoozed_until, id`;
}

/** An open conversation waiting for an answer under a reply clock, with what its due date is counted from. */
export interface WaitingUnderClock {
  id: string;
  waitingSince: Date;
  /** The routing policy's `next_response_within` (of the client's latest decision) and whether it counts working time. */
  within: string;
  workingHours: boolean;
  /** The first holder's hours and zone (none when nobody holds the client: the clock then runs all the time). */
  holderHours: unknown;
  holderTimezone: string | null;
}

/** The policy of the client whose pk is `clientPk` (SQL) by its latest routing decision (latestDecision), as `d`. */
const latestDecisionOf = (clientPk: Db.Sql) =>
  sql`(SELECT d.policy_pk FROM routing_decisions d WHERE d.client_pk = ${clientPk} ORDER BY d.decided_at DESC, d.id DESC LIMIT 1) d`;

/** The reply clock of the client's latest routing decision's policy (replyClockOf), or null. */
async function replyClockOfClient(db: Prisma | Tx, clientPk: string): Promise<ReplyClock | null> {
  const [row] = await db.$queryRaw<{ settings: unknown }[]>`SELECT p.settings FROM ${latestDecisionOf(sql`${clientPk}::uuid`)} JOIN routing_policies p ON p.pk = d.policy_pk`;
  return replyClockOf(row?.settings);
}

/**
 * The client's open conversations waiting for an answer whose waiting period was not reported overdue
 * yet (conversationClock: `reply`), when the policy of the client's latest routing decision gives a reply clock; by id.
 */
export async function waitingUnderReplyClock(db: Prisma | Tx, clientPk: string, now: Date): Promise<WaitingUnderClock[]> {
  const clock = await replyClockOfClient(db, clientPk);
  if (clock === null) return [];
  const conversations = await db.$queryRaw<(ConversationWait & { id: string })[]>`
    SELECT id, status::text AS status, waiting_since AS "waitingSince", overdue_for AS "overdueFor" FROM conversations WHERE client_pk = ${clientPk}::uuid ORDER BY id`;
  const waiting = conversations.filter((c) => conversationClock(c, clock) === 'reply');
  if (waiting.length === 0) return [];
  const assignments = await db.$queryRaw<{ id: string; status: string; dtUntil: Date; createdAt: Date; hours: unknown; timezone: string | null }[]>`
    SELECT a.id::text, a.status::text, a.dt_until AS "dtUntil", a.created_at AS "createdAt", g.working_hours AS hours, g.timezone
      FROM assignments a JOIN agents g ON g.pk = a.agent_pk WHERE a.client_pk = ${clientPk}::uuid AND a.status = 'active'`;
  const holder = clockHolder(assignments, now);
  return waiting.map((c) => ({ id: c.id, waitingSince: c.waitingSince!, ...clock, holderHours: holder?.hours ?? null, holderTimezone: holder?.timezone ?? null }));
}

/** Whether a reply clock applies to the client's conversations: its latest routing decision's policy gives one (replyClockOf). */
export async function replyClockApplies(db: Prisma | Tx, clientPk: string): Promise<boolean> {
  return (await replyClockOfClient(db, clientPk)) !== null;
}

/** awaitsAnswer of the conversation `c`, in SQL. */
const AWAITS_ANSWER = sql`c.status = 'open' AND c.waiting_since IS NOT NULL AND c.overdue_for IS DISTINCT FROM c.waiting_since`;
/** replyClockOf(p.settings) !== null, in SQL: the setting is a JSON string that begins as a duration does. */
const GIVES_REPLY_CLOCK = Db.raw(`p.settings ->> '${REPLY_CLOCK_SETTING}' LIKE 'P%'`);

/** Records that the conversation's waiting period since `waitingSince` was reported overdue: once, while it still waits since then and is open. The row after, or null. */
export async function markOverdue(tx: Tx, id: string, waitingSince: Date, now: Date): Promise<ConversationRow | null> {
  const marked = await tx.$executeRaw`
    UPDATE conversations c SET overdue_for = c.waiting_since, updated_at = ${now} WHERE c.id = ${id}::uuid AND c.waiting_since = ${waitingSince} AND ${AWAITS_ANSWER}`;
  if (marked === 0) return null;
  const [row] = await tx.$queryRaw<ConversationRow[]>`${SELECT_ROW} WHERE c.id = ${id}::uuid`;
  return row ?? null;
}

export interface SnoozedConversation {
  id: string;
  business: string;
  clientPk: string;
  clientId: string;
}

/**
 * Conversations with a clock — snoozed, or waiting for an answer under a reply clock not yet reported —
 * changed before `before` (and since `since`, of one business, if given), by id after `afterId`: the
 * reconciler checks their client's run holds them.
 */
export function clockedConversationsBefore(prisma: Prisma, filter: { before: Date; since?: Date; business?: string }, afterId: string | undefined, take: number): Promise<SnoozedConversation[]> {
  return prisma.$queryRaw<SnoozedConversation[]>`
    SELECT c.id, c.business, c.client_pk AS "clientPk", cl.id AS "clientId" FROM conversations c JOIN clients cl ON cl.pk = c.client_pk
     WHERE (c.status = 'snoozed'
            OR (${AWAITS_ANSWER} AND EXISTS (SELECT 1 FROM ${latestDecisionOf(sql`c.client_pk`)} JOIN routing_policies p ON p.pk = d.policy_pk AND ${GIVES_REPLY_CLOCK})))
       AND c.updated_at < ${filter.before} ${filter.since ? sql`AND c.updated_at >= ${filter.since}` : Db.empty}
       ${filter.business ? sql`AND c.business = ${filter.business}` : Db.empty}
       ${afterId ? sql`AND c.id > ${afterId}::uuid` : Db.empty}
     ORDER BY c.id LIMIT ${take}`;
}
