import { Prisma as Db } from '../generated/prisma/client';
import type { ConversationRow } from '../views/conversation';
import { transitionAssignments } from './conversation-transitions';
import { SELECT_ROW } from './conversations';
import type { Prisma } from './prisma';

/* The clocks of conversations (docs/conversations.md): snoozes ending and reply clocks coming due, as the client's run and the reconciler read them. */

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

/**
 * The client's open conversations waiting for an answer whose waiting period was not reported overdue
 * yet, when the policy of the client's latest routing decision gives `next_response_within`.
 */
export function waitingUnderReplyClock(db: Prisma | Tx, clientPk: string, now: Date): Promise<WaitingUnderClock[]> {
  return db.$queryRaw<WaitingUnderClock[]>`
    SELECT c.id, c.waiting_since AS "waitingSince", p.settings ->> 'next_response_within' AS within,
           COALESCE((p.settings ->> 'working_hours')::boolean, true) AS "workingHours", h.working_hours AS "holderHours", h.timezone AS "holderTimezone"
      FROM conversations c
      JOIN LATERAL (SELECT d.policy_pk FROM routing_decisions d WHERE d.client_pk = c.client_pk ORDER BY d.decided_at DESC, d.id DESC LIMIT 1) d ON true
      JOIN routing_policies p ON p.pk = d.policy_pk AND p.settings ->> 'next_response_within' LIKE 'P%'
      LEFT JOIN LATERAL (SELECT g.working_hours, g.timezone FROM assignments a JOIN agents g ON g.pk = a.agent_pk
                          WHERE a.client_pk = c.client_pk AND a.status = 'active' AND a.dt_until > ${now} ORDER BY a.created_at, a.id LIMIT 1) h ON true
     WHERE c.client_pk = ${clientPk}::uuid AND c.status = 'open' AND c.waiting_since IS NOT NULL AND c.overdue_for IS DISTINCT FROM c.waiting_since`;
}

/** Whether a reply clock applies to the client's conversations: its latest routing decision's policy gives `next_response_within`. */
export async function replyClockApplies(db: Prisma | Tx, clientPk: string): Promise<boolean> {
  const [row] = await db.$queryRaw<{ applies: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM (SELECT d.policy_pk FROM routing_decisions d WHERE d.client_pk = ${clientPk}::uuid ORDER BY d.decided_at DESC, d.id DESC LIMIT 1) d
                     JOIN routing_policies p ON p.pk = d.policy_pk AND p.settings ->> 'next_response_within' LIKE 'P%') AS applies`;
  return row?.applies ?? false;
}

/** Records that the conversation's waiting period since `waitingSince` was reported overdue: once, while it still waits since then and is open. The row after, or null. */
export async function markOverdue(tx: Tx, id: string, waitingSince: Date, now: Date): Promise<ConversationRow | null> {
  const marked = await tx.$executeRaw`
    UPDATE conversations SET overdue_for = waiting_since, updated_at = ${now}
     WHERE id = ${id}::uuid AND status = 'open' AND waiting_since = ${waitingSince} AND overdue_for IS DISTINCT FROM waiting_since`;
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
            OR (c.status = 'open' AND c.waiting_since IS NOT NULL AND c.overdue_for IS DISTINCT FROM c.waiting_since
                AND EXISTS (SELECT 1 FROM (SELECT d.policy_pk FROM routing_decisions d WHERE d.client_pk = c.client_pk ORDER BY d.decided_at DESC, d.id DESC LIMIT 1) d
                              JOIN routing_policies p ON p.pk = d.policy_pk AND p.settings ->> 'next_response_within' LIKE 'P%')))
       AND c.updated_at < ${filter.before} ${filter.since ? sql`AND c.updated_at >= ${filter.since}` : Db.empty}
       ${filter.business ? sql`AND c.business = ${filter.business}` : Db.empty}
       ${afterId ? sql`AND c.id > ${afterId}::uuid` : Db.empty}
     ORDER BY c.id LIMIT ${take}`;
}
