import { Prisma as Db, type OptOut } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/*
 * Every change of the `opt_outs` table: one record per (sender, phone), the sender being the number or
 * messaging service this deployment sends from. `opted_out` by the recipient's keyword or by the
 * carrier's "unsubscribed" refusal; `opted_in` again only by the recipient's own START.
 */

type Tx = Db.TransactionClient;

export interface OptOutChange {
  sender: string;
  phone: string;
  /** The keyword as received (upper-cased), or the carrier's error code. */
  detail: string;
  at: Date;
}

/** The recipient opted out (again): the record says so from `at`, whatever it said before. */
export async function recordOptOut(db: Prisma | Tx, change: OptOutChange & { source: 'keyword' | 'carrier' }): Promise<void> {
  const { sender, phone, source, detail, at } = change;
  await db.optOut.upsert({
    where: { sender_phone: { sender, phone } },
    create: { sender, phone, status: 'opted_out', source, detail, optedOutAt: at },
    update: { status: 'opted_out', source, detail, optedOutAt: at, optedInAt: null },
  });
}

/** The recipient texted START (or UNSTOP, YES): an opt-out record turns `opted_in`; without one there is nothing to undo. */
export async function recordOptIn(db: Prisma | Tx, change: OptOutChange): Promise<boolean> {
  const { sender, phone, detail, at } = change;
  const changed = await db.optOut.updateMany({ where: { sender, phone, status: 'opted_out' }, data: { status: 'opted_in', source: 'keyword', detail, optedInAt: at } });
  return changed.count > 0;
}

export async function isOptedOut(db: Prisma | Tx, sender: string, phone: string): Promise<boolean> {
  const record = await db.optOut.findUnique({ where: { sender_phone: { sender, phone } }, select: { status: true } });
  return record?.status === 'opted_out';
}

/**
 * The records the caller may see: those of phones the caller has texted in this business, with an
 * outbound message the carrier accepted — or refused because the number had unsubscribed, while the
 * record is that refusal's (the caller's own message already says so). A client at the number, a reply
 * from it or a send the carrier refused otherwise is not enough: the record of a number the caller never
 * reached is not found, exactly as an unknown number is not.
 */
export function listVisibleOptOuts(prisma: Prisma, scope: Scope, filter: { phone?: string; take: number; after?: { sender: string; phone: string } }): Promise<OptOut[]> {
  const { business, ownerId } = scope;
  return prisma.$queryRaw<OptOut[]>`
    SELECT o.sender, o.phone, o.status::text AS status, o.source, o.detail, o.opted_out_at AS "optedOutAt", o.opted_in_at AS "optedInAt", o.updated_at AS "updatedAt"
    FROM opt_outs o
    WHERE EXISTS (
        SELECT 1 FROM messages m
        WHERE m.phone = o.phone AND m.business = ${business} AND m.owner_id = ${ownerId} AND m.direction = 'outbound'
          AND (m.provider_accepted_at IS NOT NULL OR m.status IN ('sent', 'delivered', 'undelivered')
            OR (m.status = 'failed' AND o.source = 'carrier' AND m.error_code = o.detail)))
      ${filter.phone ? Db.sql`AND o.phone = ${filter.phone}` : Db.empty}
      ${filter.after ? Db.sql`AND (o.phone, o.sender) > (${filter.after.phone}, ${filter.after.sender})` : Db.empty}
    ORDER BY o.phone, o.sender
    LIMIT ${filter.take}`;
}

/** Which of these phones have opted out of `sender`, in one query. */
export async function optedOutAmong(db: Prisma | Tx, sender: string, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows = await db.optOut.findMany({ where: { sender, phone: { in: phones }, status: 'opted_out' }, select: { phone: true } });
  return new Set(rows.map((row) => row.phone));
}
