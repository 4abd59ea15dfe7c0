import { createHash } from 'node:crypto';
import { Prisma as Db, type Conversation, type ConversationStatus } from '../generated/prisma/client';
import type { EventType } from '../domain';
import { type ConversationClocks, type ConversationTransition, conversationAfter, conversationTransition } from '../domain/conversation-transitions';
import type { ConversationRow } from '../views/conversation';
import { holdsAtSql } from './assignment-holds';
import { creationValues, transitionAssignments } from './conversation-transitions';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/*
 * Every change of the `conversations` table (docs/conversations.md). A conversation is created by the
 * first message of a client on a sender, either way, inside the statement or transaction that stores
 * that message; its status moves by replies, by its owner (snooze, close, reopen) and by its snooze
 * ending in the client's run.
 */

type Tx = Db.TransactionClient;
const { sql } = Db;

export type { ConversationRow };

/** The conversation of (client, sender): a name-based UUID (RFC 9562, version 5 layout), so a message's insert names it without a lookup. */
export function conversationIdOf(clientPk: string, sender: string | null): string {
  const hash = createHash('sha1').update(`conversation/${clientPk}/${sender ?? ''}`).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The statement that follows an outbound message's insert (`FROM changed`, only when it inserted): its
 * conversation is created open, or answered — nothing waits any more. Its status stays: a message of
 * ours neither opens a closed conversation nor ends a snooze. `first_response_at` waits for the
 * carrier (answeredOnHandOver).
 */
export function outboundAnswerStatement(scope: Scope, message: { conversationId: string; clientPk: string; sender: string | null }, now: Date): Db.Sql {
  return sql`
    INSERT INTO conversations AS c (id, business, owner_id, client_pk, sender, status, snoozed_until, waiting_since, first_inbound_at, last_outbound_at, last_activity_at, created_at, updated_at)
    SELECT ${message.conversationId}::uuid, ${scope.business}, ${scope.ownerId}, ${message.clientPk}::uuid, ${message.sender ?? ''}, ${creationValues('answer', { at: now })}, ${now}, ${now}, ${now}, ${now}
      FROM changed
    ON CONFLICT (id) DO UPDATE SET
      ${transitionAssignments('answer', { at: now })},
      last_outbound_at = EXCLUDED.last_outbound_at,
      last_activity_at = GREATEST(c.last_activity_at, EXCLUDED.last_activity_at),
      updated_at = EXCLUDED.updated_at`;
}

/**
 * The message was handed to a carrier at `at`: when it was accepted after the client's first text of
 * its conversation, and nothing answered that conversation before, `at` is its `first_response_at`.
 * A message refused, suppressed (STOP) or canceled before that never answered anyone.
 */
export async function answeredOnHandOver(db: Prisma | Tx, messageId: string, at: Date): Promise<void> {
  await db.$executeRaw`
    UPDATE conversations c SET first_response_at = ${at}, updated_at = ${at}
      FROM messages m
     WHERE m.id = ${messageId}::uuid AND m.direction = 'outbound' AND c.id = m.conversation_id
       AND c.first_response_at IS NULL AND c.first_inbound_at IS NOT NULL AND c.first_inbound_at <= m.created_at`;
}

/** What an inbound message did to its conversation: `opened` when it was new, closed or snoozed, or this is the client's first text; `waitingStarted` when nothing waited before it. */
export interface InboundEffect {
  conversation: ConversationRow;
  opened: boolean;
  waitingStarted: boolean;
}

/**
 * A client's text stored as a message: its conversation is created or opened (a closed one, or a snoozed
 * one — a reply always ends a snooze), and its waiting clock starts unless something already waits. A
 * keyword (STOP, START, HELP) is in the thread but answered by the service itself: it changes no status
 * and starts no clock.
 */
export async function recordInbound(
  tx: Tx,
  inbound: { id: string; business: string; ownerId: string; clientPk: string; sender: string; at: Date; keyword: boolean },
): Promise<InboundEffect> {
  const { id, business, ownerId, clientPk, sender, at, keyword } = inbound;
  const happening = keyword ? 'keyword' : 'text';
  // Locked and read before the upsert, in a statement of its own: read in the upsert's own statement, the
  // row it changed is skipped by FOR UPDATE.
  const [before] = await tx.$queryRaw<ConversationClocks[]>`
    SELECT status, snoozed_until AS "snoozedUntil", waiting_since AS "waitingSince", first_inbound_at AS "firstInboundAt"
      FROM conversations WHERE id = ${id}::uuid FOR UPDATE`;
  const [row] = await tx.$queryRaw<(Conversation & { clientId: string })[]>`
    WITH upserted AS (
      INSERT INTO conversations AS c (id, business, owner_id, client_pk, sender, status, snoozed_until, waiting_since, first_inbound_at, last_inbound_at, last_activity_at, created_at, updated_at)
      VALUES (${id}::uuid, ${business}, ${ownerId}, ${clientPk}::uuid, ${sender}, ${creationValues(happening, { at })}, ${at}, ${at}, ${at}, ${at})
      ON CONFLICT (id) DO UPDATE SET
        ${transitionAssignments(happening, { at })},
        last_inbound_at = EXCLUDED.last_inbound_at,
        last_activity_at = GREATEST(c.last_activity_at, EXCLUDED.last_activity_at),
        updated_at = EXCLUDED.updated_at
      RETURNING c.*)
    SELECT u.id, u.business, u.owner_id AS "ownerId", u.client_pk AS "clientPk", u.sender, u.status, u.waiting_since AS "waitingSince",
           u.last_inbound_at AS "lastInboundAt", u.last_outbound_at AS "lastOutboundAt", u.first_response_at AS "firstResponseAt",
           u.snoozed_until AS "snoozedUntil", u.overdue_for AS "overdueFor", u.last_activity_at AS "lastActivityAt",
           u.created_at AS "createdAt", u.updated_at AS "updatedAt", cl.id AS "clientId"
      FROM upserted u JOIN clients cl ON cl.pk = u.client_pk`;
  const outcome = conversationAfter(before ?? null, happening, at) as { event: EventType | null };
  const cell = conversationTransition(before?.status ?? 'none', happening) as ConversationTransition;
  return { conversation: row, opened: outcome.event === 'conversation.opened', waitingStarted: cell.waitingSince === 'start' && !before?.waitingSince };
}

const COLUMNS = sql`
  c.id, c.business, c.owner_id AS "ownerId", c.client_pk AS "clientPk", c.sender, c.status, c.waiting_since AS "waitingSince",
  c.last_inbound_at AS "lastInboundAt", c.last_outbound_at AS "lastOutboundAt", c.first_response_at AS "firstResponseAt",
  c.snoozed_until AS "snoozedUntil", c.overdue_for AS "overdueFor", c.last_activity_at AS "lastActivityAt",
  c.created_at AS "createdAt", c.updated_at AS "updatedAt", cl.id AS "clientId"`;

export const SELECT_ROW = sql`SELECT ${COLUMNS} FROM conversations c JOIN clients cl ON cl.pk = c.client_pk`;

/** The caller's conversation, or null (another's, or none). */
export async function findConversation(db: Prisma | Tx, scope: Scope, id: string): Promise<ConversationRow | null> {
  const [row] = await db.$queryRaw<ConversationRow[]>`${SELECT_ROW} WHERE c.id = ${id}::uuid AND c.business = ${scope.business} AND c.owner_id = ${scope.ownerId}`;
  return row ?? null;
}

export interface ConversationFilter {
  status?: ConversationStatus;
  clientPk?: string;
  /** Held by this agent now (an active assignment whose `dt_until` is ahead). */
  agentPk?: string;
  /** Only those waiting, the longest waiting first. */
  waiting: boolean;
  take: number;
  /** The position of the last one of the page before: its activity (or waiting) time and id. */
  after?: { at: Date; id: string };
}

/**
 * An agent's page (`?agent=`) is read whichever way reads fewer rows, as PostgreSQL cannot tell
 * (bench/scenarios/conversations.ts, docs/performance.md "Conversations"): an agent holding at most
 * AGENT_HELD_FIRST clients, from its clients' conversations, sorted; one holding more, from the caller's
 * conversations in the page's order, keeping those it holds, over the first AGENT_WALK of them — and when
 * those do not fill the page (its clients are not among the newest: it holds quiet clients), from its
 * clients' conversations after all. Left to itself, PostgreSQL walks the order whenever it expects the
 * agent's clients to come soon, and reads every conversation of the caller when they do not (85 ms for an
 * agent holding 1 % of 100,000 at random, 300–800 ms for one holding the 3,000 quietest).
 */
const AGENT_HELD_FIRST = 2000;
const AGENT_WALK = 3000;

/** One page of the caller's conversations: newest activity first, or (waiting) the longest waiting first. */
export async function listConversations(prisma: Prisma, scope: Scope, filter: ConversationFilter, now: Date): Promise<ConversationRow[]> {
  const { status, clientPk, agentPk, waiting, take, after } = filter;
  const conditions = [sql`c.business = ${scope.business}`, sql`c.owner_id = ${scope.ownerId}`];
  if (status) conditions.push(sql`c.status = ${status}::"ConversationStatus"`);
  if (clientPk) conditions.push(sql`c.client_pk = ${clientPk}::uuid`);
  if (waiting) {
    conditions.push(sql`c.waiting_since IS NOT NULL`);
    if (after) conditions.push(sql`(c.waiting_since, c.id) > (${after.at}, ${after.id}::uuid)`);
  } else if (after) {
    conditions.push(sql`(c.last_activity_at, c.id) < (${after.at}, ${after.id}::uuid)`);
  }
  const order = waiting ? sql`c.waiting_since ASC, c.id ASC` : sql`c.last_activity_at DESC, c.id DESC`;
  const holds = sql`a.agent_pk = ${agentPk}::uuid AND ${holdsAtSql(now)}`;
  const held = sql`EXISTS (SELECT 1 FROM assignments a WHERE a.client_pk = c.client_pk AND ${holds})`;
  // Without an agent, or with a client (whose conversations are few), one query as PostgreSQL plans it.
  if (!agentPk || clientPk) {
    return prisma.$queryRaw<ConversationRow[]>`${SELECT_ROW} WHERE ${Db.join(agentPk ? [...conditions, held] : conditions, ' AND ')} ORDER BY ${order} LIMIT ${take}`;
  }
  const where = Db.join(conditions, ' AND ');
  // The clients the agent holds (read apart, MATERIALIZED: from the index alone), each one's conversations
  // looked up by client (OFFSET 0 keeps that lookup per client), the page's ids sorted out of them, then their rows.
  const fromHeldClients = () => prisma.$queryRaw<ConversationRow[]>`
    WITH held AS MATERIALIZED (SELECT a.client_pk FROM assignments a WHERE ${holds})
    SELECT ${COLUMNS} FROM (
      SELECT p.id FROM (SELECT DISTINCT client_pk FROM held) h
       CROSS JOIN LATERAL (SELECT c.id, c.last_activity_at, c.waiting_since FROM conversations c JOIN clients cl ON cl.pk = c.client_pk
                            WHERE c.client_pk = h.client_pk AND ${where} OFFSET 0) p
       ORDER BY ${waiting ? sql`p.waiting_since ASC, p.id ASC` : sql`p.last_activity_at DESC, p.id DESC`} LIMIT ${take}) page
     JOIN conversations c ON c.id = page.id JOIN clients cl ON cl.pk = c.client_pk
     ORDER BY ${order} LIMIT ${take}`;
  const [{ count }] = await prisma.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM (SELECT 1 FROM assignments a WHERE ${holds} LIMIT ${AGENT_HELD_FIRST + 1}) a`;
  if (count <= AGENT_HELD_FIRST) return fromHeldClients();
  // The first `take` the agent holds among the first AGENT_WALK in the page's order are the page's first `take`.
  const walked = await prisma.$queryRaw<ConversationRow[]>`
    SELECT ${COLUMNS} FROM (SELECT * FROM conversations c WHERE ${where} ORDER BY ${order} LIMIT ${AGENT_WALK}) c JOIN clients cl ON cl.pk = c.client_pk
     WHERE ${held} ORDER BY ${order} LIMIT ${take}`;
  return walked.length === take ? walked : fromHeldClients();
}

/** Who holds each client now (agent ids, oldest assignment first): a conversation's assignees. */
export async function holdersOf(db: Prisma | Tx, clientPks: string[], now: Date): Promise<Map<string, string[]>> {
  const holders = new Map<string, string[]>();
  if (clientPks.length === 0) return holders;
  const rows = await db.$queryRaw<{ clientPk: string; agentId: string }[]>`
    SELECT a.client_pk AS "clientPk", g.id AS "agentId" FROM assignments a JOIN agents g ON g.pk = a.agent_pk
     WHERE a.client_pk = ANY(${clientPks}::uuid[]) AND ${holdsAtSql(now)}
     ORDER BY a.created_at, a.id`;
  for (const row of rows) holders.set(row.clientPk, [...(holders.get(row.clientPk) ?? []), row.agentId]);
  return holders;
}

/** How many inbound messages of each conversation come after the agent's read horizon (all of them without one). */
export async function unreadCounts(db: Prisma | Tx, conversationIds: string[], agentPk: string): Promise<Map<string, number>> {
  if (conversationIds.length === 0) return new Map();
  const rows = await db.$queryRaw<{ id: string; unread: number }[]>`
    SELECT c.id, (SELECT count(*)::int FROM messages m
                   WHERE m.conversation_id = c.id AND m.direction = 'inbound'
                     AND (r.message_at IS NULL OR (m.created_at, m.id) > (r.message_at, r.message_id))) AS unread
      FROM unnest(${conversationIds}::uuid[]) AS c(id)
      LEFT JOIN conversation_reads r ON r.conversation_id = c.id AND r.agent_pk = ${agentPk}::uuid`;
  return new Map(rows.map((row) => [row.id, row.unread]));
}

export type StatusChange =
  | { to: 'snoozed'; until: Date }
  | { to: 'closed' }
  | { to: 'open' };

const HAPPENINGS = { snoozed: 'snooze', closed: 'close', open: 'reopen' } as const;

/**
 * Moves the caller's conversation to another status, as the transition table says; the row after the
 * change, with whether it changed (`false`: it was there already, and nothing was written) and the
 * event that reports it, or null when it is not the caller's. A snooze of a closed conversation is `refused`.
 */
export async function changeStatus(
  tx: Tx,
  scope: Scope,
  id: string,
  change: StatusChange,
  now: Date,
): Promise<{ row: ConversationRow; changed: boolean; event: EventType | null } | { refused: 'closed' } | null> {
  const [current] = await tx.$queryRaw<ConversationClocks[]>`
    SELECT status, snoozed_until AS "snoozedUntil", waiting_since AS "waitingSince", first_inbound_at AS "firstInboundAt"
      FROM conversations WHERE id = ${id}::uuid AND business = ${scope.business} AND owner_id = ${scope.ownerId} FOR UPDATE`;
  if (!current) return null;
  const until = change.to === 'snoozed' ? change.until : null;
  const outcome = conversationAfter(current, HAPPENINGS[change.to], now, until);
  if (outcome === 'refused') return { refused: 'closed' };
  const changed = typeof outcome !== 'string';
  if (changed) {
    await tx.$executeRaw`UPDATE conversations AS c SET ${transitionAssignments(HAPPENINGS[change.to], { at: now, until }, [current.status])}, updated_at = ${now} WHERE c.id = ${id}::uuid`;
  }
  return { row: (await findConversation(tx, scope, id))!, changed, event: changed ? outcome.event : null };
}

/**
 * Moves the agent's read horizon in the conversation to the message (one of the conversation's), never
 * back: a horizon already at or past it stays. Returns false when the message is not in the conversation.
 */
export async function moveReadHorizon(db: Prisma | Tx, input: { conversationId: string; agentPk: string; messageId: string }, now: Date): Promise<boolean> {
  const moved = await db.$queryRaw<{ found: boolean }[]>`
    WITH message AS (SELECT id, created_at FROM messages WHERE id = ${input.messageId}::uuid AND conversation_id = ${input.conversationId}::uuid),
    upserted AS (
      INSERT INTO conversation_reads AS r (conversation_id, agent_pk, message_id, message_at, updated_at)
      SELECT ${input.conversationId}::uuid, ${input.agentPk}::uuid, m.id, m.created_at, ${now} FROM message m
      ON CONFLICT (conversation_id, agent_pk) DO UPDATE SET message_id = EXCLUDED.message_id, message_at = EXCLUDED.message_at, updated_at = EXCLUDED.updated_at
       WHERE (EXCLUDED.message_at, EXCLUDED.message_id) > (r.message_at, r.message_id)
      RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM message) AS found`;
  return moved[0]?.found ?? false;
}

/** Ends the conversations of an erased client: their notes and read horizons go with them, its messages keep no thread. */
export async function eraseClientConversations(tx: Tx, clientPk: string): Promise<void> {
  await tx.$executeRaw`UPDATE messages SET conversation_id = NULL WHERE client_pk = ${clientPk}::uuid AND conversation_id IS NOT NULL`;
  await tx.$executeRaw`DELETE FROM conversations WHERE client_pk = ${clientPk}::uuid`;
}
