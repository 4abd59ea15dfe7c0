import { Prisma as Db, type OptOut } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import type { Scope } from './scope';
import { type Channel, CHANNELS, optOutChannelOf } from '../domain/channels';
import { forbidsMessage } from '../domain/opt-outs';
import { REVEALING_STATUSES } from '../domain/opt-out-visibility';

/*
 * Every change of the `opt_outs` table: one record per (sender, phone), the sender being the number or
 * messaging service the text went to. `opted_out` by the recipient's keyword or by the carrier's
 * "unsubscribed" refusal; `opted_in` again only by the recipient's own START. A record of a business's
 * own number names the business: it blocks every sender of that business to the phone, and a START to
 * any of its numbers lifts them all. A record of the deployment's shared sender (`business` null) stays
 * per (sender, phone). Each record is of one channel: `sms` (SMS and MMS) or `whatsapp` — a STOP on
 * WhatsApp opts the phone out of WhatsApp only, a STOP by SMS out of SMS and MMS.
 */

type Tx = Db.TransactionClient;

export { optOutChannelOf };

export interface OptOutChange {
  sender: string;
  phone: string;
  /** The business whose own number `sender` is; null for the shared sender. */
  business: string | null;
  channel: Channel;
  /** The keyword as received (upper-cased), or the carrier's error code. */
  detail: string;
  at: Date;
}

/** The recipient opted out (again): the record says so from `at`, whatever it said before. */
export async function recordOptOut(db: Prisma | Tx, change: OptOutChange & { source: 'keyword' | 'carrier' }): Promise<void> {
  const { sender, phone, business, channel, source, detail, at } = change;
  await db.optOut.upsert({
    where: { sender_phone_channel: { sender, phone, channel } },
    create: { sender, phone, business, channel, status: 'opted_out', source, detail, optedOutAt: at },
    update: { business, status: 'opted_out', source, detail, optedOutAt: at, optedInAt: null },
  });
}

/** The recipient texted START (or UNSTOP, YES): an opt-out record turns `opted_in`; without one there is nothing to undo. */
export async function recordOptIn(db: Prisma | Tx, change: OptOutChange): Promise<boolean> {
  const { sender, phone, business, channel, detail, at } = change;
  const changed = await db.optOut.updateMany({
    where: { phone, channel, status: 'opted_out', ...(business === null ? { sender, business: null } : { business }) },
    data: { status: 'opted_in', source: 'keyword', detail, optedInAt: at },
  });
  return changed.count > 0;
}

/** optOutChannelOf of the message `m`'s channel, a CASE written from the function over every channel. */
const OPT_OUT_CHANNEL = Db.raw(`CASE m.channel ${CHANNELS.map((c) => `WHEN '${c}' THEN '${optOutChannelOf(c)}'`).join(' ')} ELSE '${optOutChannelOf('')}' END`);

/**
 * forbidsMessage (src/domain/opt-outs.ts) of the record `o` and the message `m`, in SQL: due messages are
 * suppressed in the statement that finds them (test/messages/opt-out-sql.test.ts runs it for every row of the rule's table).
 */
export const FORBIDS_MESSAGE = Db.sql`o.phone = m.phone AND o.status = 'opted_out' AND o.channel = (${OPT_OUT_CHANNEL}) AND ((o.business IS NULL AND o.sender = m.sender) OR o.business = m.business)`;

/** Whether a message of `business` from `sender` to `phone` is forbidden: the shared sender's record, or any of the business's own. */
export async function isOptedOut(db: Prisma | Tx, business: string, sender: string, phone: string, channel: Channel = 'sms'): Promise<boolean> {
  return (await optedOutAmong(db, business, sender, [phone], channel)).size > 0;
}

/** The business `sender` is an own number of (held now or before), or null: the shared sender. */
export async function optOutScopeOf(db: Prisma | Tx, business: string, sender: string): Promise<string | null> {
  return (await db.businessNumber.count({ where: { business, number: sender } })) > 0 ? business : null;
}

/**
 * The records the caller may see: those of phones the caller has texted in this business, with an
 * outbound message the carrier accepted — or refused because the number had unsubscribed, while the
 * record is that refusal's (the caller's own message already says so). A client at the number, a reply
 * from it or a send the carrier refused otherwise is not enough: the record of a number the caller never
 * reached is not found, exactly as an unknown number is not.
 */
export function listVisibleOptOuts(prisma: Prisma, scope: Scope, filter: { phone?: string; take: number; after?: { sender: string; phone: string; channel?: string } }): Promise<OptOut[]> {
  const { business, ownerId } = scope;
  return prisma.$queryRaw<OptOut[]>`
    SELECT o.sender, o.phone, o.channel, o.status::text AS status, o.source, o.detail, o.business, o.opted_out_at AS "optedOutAt", o.opted_in_at AS "optedInAt", o.updated_at AS "updatedAt"
    FROM opt_outs o
    WHERE (${textedBy(scope)}
        OR EXISTS (SELECT 1 FROM opt_out_holders h WHERE h.business = ${business} AND h.owner_id = ${ownerId} AND h.phone = o.phone))
      AND (o.business IS NULL OR o.business = ${business})
      ${filter.phone ? Db.sql`AND o.phone = ${filter.phone}` : Db.empty}
      ${filter.after ? Db.sql`AND (o.phone, o.sender, o.channel) > (${filter.after.phone}, ${filter.after.sender}, ${filter.after.channel ?? ''})` : Db.empty}
    ORDER BY o.phone, o.sender, o.channel
    LIMIT ${filter.take}`;
}

/** revealsOptOut (src/domain/opt-out-visibility.ts), over the caller's message `m` and the record `o`. */
export const REVEALS = Db.sql`(m.provider_accepted_at IS NOT NULL OR m.status IN (${Db.raw(REVEALING_STATUSES.map((status) => `'${status}'`).join(', '))})
  OR (m.status = 'failed' AND o.source = 'carrier' AND m.error_code = o.detail))`;

/** Whether the caller texted the phone of record `o` (listVisibleOptOuts says what counts). */
const textedBy = ({ business, ownerId }: Scope) => Db.sql`EXISTS (
  SELECT 1 FROM messages m
   WHERE m.phone = o.phone AND m.business = ${business} AND m.owner_id = ${ownerId} AND m.direction = 'outbound'
     AND ${REVEALS})`;

/**
 * Before an erasure clears the phones of the caller's messages: the opt-out records of those phones the
 * caller sees stay visible to it (opt_out_holders). The record is the number's and outlives the client;
 * only a phone that has a record, which keeps the phone anyway, is written.
 */
export async function keepOptOutsVisible(tx: Tx, scope: Scope, phones: string[]): Promise<void> {
  if (phones.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO opt_out_holders (business, owner_id, phone)
    SELECT DISTINCT ${scope.business}, ${scope.ownerId}, o.phone FROM opt_outs o
     WHERE o.phone = ANY(${phones}::text[]) AND (o.business IS NULL OR o.business = ${scope.business}) AND ${textedBy(scope)}
    ON CONFLICT DO NOTHING`;
}

/** Which of these phones a message of `business` from `sender` may not reach (forbidsMessage), in one query. */
export async function optedOutAmong(db: Prisma | Tx, business: string, sender: string | null, phones: string[], channel: Channel = 'sms'): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const records = await db.optOut.findMany({ where: { phone: { in: phones }, status: 'opted_out' }, select: { phone: true, sender: true, business: true, channel: true, status: true } });
  return new Set(records.filter((record) => forbidsMessage(record, { phone: record.phone, sender, business, channel })).map((record) => record.phone));
}
