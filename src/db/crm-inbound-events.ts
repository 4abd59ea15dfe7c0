import { Prisma as Db } from '../generated/prisma/client';
import { crmRecordOfClientId } from '../domain';
import type { Prisma } from './prisma';

/*
 * Every change of `crm_inbound_events`: recorded once per vendor event id before the CRM is answered
 * (a repeat delivery inserts nothing), handled by the record's lead workflow in order of arrival and
 * stamped with what the handling did.
 */

type Tx = Db.TransactionClient;

export interface NewInboundEvent {
  eventKey: string;
  recordId: string;
  kind: string;
  ownerValue: string | null;
  occurredAt: Date | null;
}

/** Records the events not seen before, in one statement; answers how many were new and the ids of their records. */
export async function recordInboundEvents(prisma: Prisma, business: string, crm: string, events: NewInboundEvent[]): Promise<{ inserted: number; recordIds: string[] }> {
  if (events.length === 0) return { inserted: 0, recordIds: [] };
  const rows = await prisma.$queryRaw<{ record_id: string }[]>`
    INSERT INTO crm_inbound_events (id, business, crm, event_key, record_id, kind, owner_value, occurred_at)
    SELECT gen_random_uuid(), ${business}, ${crm}, e.event_key, e.record_id, e.kind, e.owner_value, e.occurred_at
      FROM unnest(${events.map((e) => e.eventKey)}::text[], ${events.map((e) => e.recordId)}::text[], ${events.map((e) => e.kind)}::text[],
                  ${events.map((e) => e.ownerValue)}::text[], ${events.map((e) => e.occurredAt)}::timestamptz[])
           AS e(event_key, record_id, kind, owner_value, occurred_at)
    ON CONFLICT (business, crm, event_key) DO NOTHING
    RETURNING record_id`;
  return { inserted: rows.length, recordIds: [...new Set(rows.map((row) => row.record_id))] };
}

/** The record's oldest event not yet handled, or null. */
export function nextPendingEvent(prisma: Prisma, business: string, crm: string, recordId: string) {
  return prisma.crmInboundEvent.findFirst({
    where: { business, crm, recordId, processedAt: null },
    orderBy: [{ receivedAt: 'asc' }, { occurredAt: 'asc' }],
  });
}

export function findInboundEvent(db: Prisma | Tx, id: string) {
  return db.crmInboundEvent.findUnique({ where: { id } });
}

/** Stamps the event handled, once: a second stamp (a retried activity) changes nothing. */
export async function markEventProcessed(db: Prisma | Tx, id: string, outcome: string, now = new Date()): Promise<void> {
  await db.crmInboundEvent.updateMany({ where: { id, processedAt: null }, data: { processedAt: now, outcome } });
}

/** The events of a record whose client was erased: gone. */
export async function deleteRecordEvents(tx: Tx, business: string, crm: string, recordId: string): Promise<void> {
  await tx.crmInboundEvent.deleteMany({ where: { business, crm, recordId } });
}

/**
 * Events of an erased record, handled as ignored (`erased`): stamped, and stripped of the record's id
 * (and of a key that may hold it), so the row says only that an event came and was ignored.
 */
export async function markEventsErased(db: Prisma | Tx, where: { id: string } | { business: string; crm: string; recordId: string }, now = new Date()): Promise<number> {
  const of = 'id' in where ? Db.sql`id = ${where.id}::uuid` : Db.sql`business = ${where.business} AND crm = ${where.crm} AND record_id = ${where.recordId}`;
  return db.$executeRaw`
    UPDATE crm_inbound_events SET processed_at = ${now}, outcome = 'erased', record_id = '', event_key = 'erased:' || id::text
     WHERE ${of} AND processed_at IS NULL`;
}

/** Records with events left unhandled for longer than `graceMs`: what the sweep hands to their workflows again. */
export function recordsWithStaleEvents(prisma: Prisma, graceMs: number, take: number, now = new Date(), of?: { business: string; crm: string }) {
  return prisma.crmInboundEvent.findMany({
    where: { ...of, processedAt: null, receivedAt: { lt: new Date(now.getTime() - graceMs) } },
    distinct: ['business', 'crm', 'recordId'],
    select: { business: true, crm: true, recordId: true },
    take,
  });
}

/** Of these records, the ones a creation was already recorded for (by a webhook or an earlier sweep). */
export async function recordsWithCreation(prisma: Prisma, business: string, crm: string, recordIds: string[]): Promise<Set<string>> {
  if (recordIds.length === 0) return new Set();
  const rows = await prisma.crmInboundEvent.findMany({ where: { business, crm, kind: 'created', recordId: { in: recordIds } }, distinct: ['recordId'], select: { recordId: true } });
  return new Set(rows.map((row) => row.recordId));
}

/** The events that end an assignment. */
const ENDINGS = new Set(['assignment.expired', 'assignment.unassigned']);

/**
 * An assignment of a CRM lead's client ended (expiry, unassign, the router's reassignment, an agent or
 * the client deleted): recorded as the record's `holder_changed` event in the ending's own transaction,
 * so the lead's workflow writes whoever holds the client now back as the CRM's owner, however the
 * process fares after the commit. Only for clients with a lead decision; once per ended assignment.
 * Called before the ending's events are recorded (see withEvents: no row waits after the event lock).
 */
export async function recordHolderChanges(tx: Tx, events: { type: string; clientId: string | null; scope: { business: string }; data: Record<string, unknown> }[]): Promise<void> {
  for (const event of events) {
    const record = ENDINGS.has(event.type) && event.clientId ? crmRecordOfClientId(event.clientId) : null;
    if (!record) continue;
    const eventKey = `holder:${String(event.data.workflow_id)}:${String(event.data.ended_at)}`.slice(0, 255);
    await tx.$executeRaw`
      INSERT INTO crm_inbound_events (id, business, crm, event_key, record_id, kind)
      SELECT gen_random_uuid(), l.business, l.crm, ${eventKey}, l.record_id, 'holder_changed'
        FROM crm_leads l WHERE l.business = ${event.scope.business} AND l.crm = ${record.crm} AND l.record_id = ${record.recordId}
      ON CONFLICT (business, crm, event_key) DO NOTHING`;
  }
}
