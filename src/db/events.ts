import { Prisma as Db } from '../generated/prisma/client';
import type { EventPattern } from '../domain';
import type { NewEvent, OwnerEvent } from '../domain/event-payloads';
import { erasedEventData } from '../domain/event-erasure';
import { recordHolderChanges } from './crm-inbound-events';
import type { NewDelivery, Prisma } from './prisma';

export type { DeliveryHandOver, NewDelivery } from './prisma';
export type { NewEvent, OwnerEvent } from '../domain/event-payloads';
// The builders of each event's data are pure (src/views/event-payloads.ts); re-exported for the modules that record events.
export { assignmentEvent, clientDeletedEvent, conversationEvent, messageEvent, noteEvent } from '../views/event-payloads';
import type { Scope } from './scope';

/*
 * Every change of the `events` table. An event is written by `recordEvent` inside the transaction of
 * the change it reports (src/db/assignments.ts, src/db/messages/, src/db/message-batches.ts), together with one delivery row
 * for each active subscription that wants it: no event without its change, no change without its event.
 */

type Tx = Db.TransactionClient;
const { sql, empty } = Db;

/**
 * Events of one owner in one statement, after `change` when given (a data-modifying query; the events
 * are written only when it returned a row). The owner's advisory lock is taken once.
 */
function eventsStatement(scope: Scope, events: OwnerEvent[], change?: Db.Sql, follow?: Db.Sql): Db.Sql {
  const { business, ownerId } = scope;
  return sql`
    WITH ${change ? sql`changed AS (${change}),` : empty}
    ${follow ? sql`followed AS (${follow}),` : empty}
    locked AS (SELECT pg_advisory_xact_lock(hashtextextended(${business} || '/' || ${ownerId}, 0)) ${change ? sql`FROM (SELECT 1 FROM changed LIMIT 1) c` : empty}),
    event AS (
      INSERT INTO events (business, owner_id, client_pk, type, data)
      SELECT ${business}, ${ownerId}, e.client_pk, e.type, e.data::json
        FROM locked, unnest(${events.map((e) => e.clientPk)}::uuid[], ${events.map((e) => e.type)}::text[], ${events.map((e) => JSON.stringify(e.data))}::text[])
             WITH ORDINALITY AS e(client_pk, type, data, n)
       ORDER BY e.n
      RETURNING id, business, owner_id, type, client_pk
    ),
    delivery AS (
      INSERT INTO webhook_deliveries (event_id, subscription_id)
      SELECT event.id, s.id FROM event JOIN webhook_subscriptions s
        ON s.business = event.business AND s.owner_id = event.owner_id AND s.disabled_at IS NULL
       AND s.events && ARRAY['*', split_part(event.type, '.', 1) || '.*', event.type]
      RETURNING id, event_id
    )
    SELECT (SELECT count(*) FROM locked)::int AS changed, NULL AS type, NULL AS client_pk, NULL AS delivery_id
    UNION ALL
    SELECT 1, event.type, event.client_pk::text, delivery.id::text FROM delivery JOIN event ON event.id = delivery.event_id`;
}

type ManyEventsRow = { changed: number; type: string | null; client_pk: string | null; delivery_id: string | null };

function deliveriesOfMany(scope: Scope, events: OwnerEvent[], rows: ManyEventsRow[]): NewDelivery[] {
  const clientIds = new Map(events.map((e) => [e.clientPk, e.clientId]));
  return rows.flatMap((row) => (row.delivery_id ? [{ id: row.delivery_id, business: scope.business, type: row.type!, clientId: clientIds.get(row.client_pk) ?? null }] : []));
}

/**
 * Inserts events of one owner and their deliveries in one statement. The per-owner advisory lock, held
 * until commit, makes one owner's `seq` follow commit order, so a feed reader that has seen `seq` n never
 * finds an event below n appear later.
 */
export async function recordEvents(tx: Tx, scope: Scope, events: OwnerEvent[]): Promise<NewDelivery[]> {
  if (events.length === 0) return [];
  return deliveriesOfMany(scope, events, await tx.$queryRaw<ManyEventsRow[]>(eventsStatement(scope, events)));
}

export function recordEvent(tx: Tx, { scope, ...event }: NewEvent): Promise<NewDelivery[]> {
  return recordEvents(tx, scope, [event]);
}

/**
 * Makes one change and records its event in a single statement (one round trip, its own transaction):
 * `change` is a data-modifying query with `RETURNING 1`, and the event is written only when it changed
 * a row. The event's data is computed beforehand, so this suits changes whose result is known in
 * advance (an insert). False when nothing changed. New deliveries are handed over once it committed.
 */
export async function changeWithEvent(prisma: Prisma, change: Db.Sql, { scope, ...event }: NewEvent, follow?: Db.Sql): Promise<boolean> {
  const rows = await prisma.$queryRaw<ManyEventsRow[]>(eventsStatement(scope, [event], change, follow));
  const deliveries = deliveriesOfMany(scope, [event], rows);
  if (deliveries.length > 0) prisma.handOverDeliveries?.(deliveries);
  return rows[0]?.changed > 0;
}

export type RecordEvent = (event: NewEvent) => Promise<void>;
export type RecordEvents = (scope: Scope, events: OwnerEvent[]) => Promise<void>;

/**
 * Runs `work` in one transaction with a `record` that writes events into it; once it has committed,
 * the new deliveries go to the client's `handOverDeliveries` (src/db/prisma.ts), best effort. `work` records its events after its last
 * row change: a transaction that holds the owner's event lock then waits for nothing but its commit,
 * so the lock can never close a deadlock cycle with row locks.
 */
export async function withEvents<T>(prisma: Prisma, work: (tx: Tx, record: RecordEvent, recordMany: RecordEvents) => Promise<T>): Promise<T> {
  const deliveries: NewDelivery[] = [];
  const result = await prisma.$transaction(async (tx) => {
    deliveries.length = 0;
    return work(
      tx,
      async (event) => {
        await recordHolderChanges(tx, [event]);
        deliveries.push(...(await recordEvent(tx, event)));
      },
      async (scope, events) => {
        await recordHolderChanges(tx, events.map((event) => ({ ...event, scope })));
        deliveries.push(...(await recordEvents(tx, scope, events)));
      },
    );
  });
  if (deliveries.length > 0) prisma.handOverDeliveries?.(deliveries);
  return result;
}

/** What an assignment event needs read along with the row. */
export const ASSIGNMENT_EVENT_INCLUDE = {
  agent: { select: { id: true } },
  client: { select: { id: true, business: true, ownerId: true } },
} as const;

/**
 * An erased client's events keep their ids, types, times and statuses: its phone, name and the free
 * texts about it go. The name is in the named fields only; a phone may also be a message's `from` or
 * `to`, so every string holding one of `phones` (its own, and any its messages went to) goes too.
 * Rewritten in place, a page at a time, in the caller's transaction.
 */
export async function eraseClientEvents(tx: Tx, clientPk: string, phones: string[]): Promise<void> {
  const needles = phones.filter((p) => p.length > 0);
  let after: bigint | undefined;
  for (;;) {
    const page = await tx.event.findMany({ where: { clientPk, ...(after !== undefined && { seq: { gt: after } }) }, select: { id: true, seq: true, data: true }, orderBy: { seq: 'asc' }, take: 500 });
    for (const event of page) {
      const data = erasedEventData(event.data, needles);
      if (JSON.stringify(data) !== JSON.stringify(event.data)) await tx.event.update({ where: { id: event.id }, data: { data: data as Db.InputJsonValue } });
    }
    if (page.length < 500) return;
    after = page[page.length - 1].seq;
  }
}

/** The types a pattern stands for, as SQL can match them: `assignment.*` is a prefix. */
function typeFilter(pattern: EventPattern | undefined): Db.EventWhereInput {
  if (!pattern || pattern === '*') return {};
  return pattern.endsWith('.*') ? { type: { startsWith: pattern.slice(0, -1) } } : { type: pattern };
}

export interface EventFilter {
  afterSeq?: bigint;
  type?: EventPattern;
  /** Only events about this client (its internal key). */
  clientPk?: string;
  take: number;
}

/** The owner's events in commit order, after `afterSeq`. */
export function listEvents(prisma: Prisma, scope: Scope, filter: EventFilter) {
  return prisma.event.findMany({
    where: {
      ...scope,
      ...typeFilter(filter.type),
      ...(filter.clientPk && { clientPk: filter.clientPk }),
      ...(filter.afterSeq !== undefined && { seq: { gt: filter.afterSeq } }),
    },
    orderBy: { seq: 'asc' },
    take: filter.take,
  });
}

/**
 * Retention: up to `take` events created before `before`, oldest first, that no delivery still waits
 * on, are deleted (their finished deliveries with them). The feed's cursors stay valid: they name a
 * sequence number, not a row.
 */
export async function deleteEventsCreatedBefore(prisma: Prisma, before: Date, take: number): Promise<number> {
  return prisma.$executeRaw`
    DELETE FROM events WHERE id IN (
      SELECT e.id FROM events e
      WHERE e.created_at < ${before}
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
      ORDER BY e.seq
      LIMIT ${take}
    )`;
}
