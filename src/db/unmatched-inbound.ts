import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';

/*
 * Texts no outbound message explains (none went to that phone from the number, or several users' did):
 * kept (not dropped) and counted; the operator sees them all, a business those sent to its numbers. Written only by storeInbound (src/db/messages/inbound.ts), in the
 * transaction in which inboundSeenBefore has already made sure the carrier's id was not stored before.
 */

export interface UnmatchedText {
  provider: string;
  inboundKey: string;
  /** The number the text was sent to (ours). */
  sender: string;
  phone: string;
  text: string;
  receivedAt: Date;
  /** The business whose number it went to; null on the shared sender. */
  business: string | null;
  /** More than one user could own it. */
  ambiguous: boolean;
  channel: string;
  media: Db.InputJsonValue | typeof Db.DbNull;
}

export async function insertUnmatchedInbound(tx: Db.TransactionClient, text: UnmatchedText): Promise<void> {
  await tx.unmatchedInbound.create({ data: text });
}

export async function unmatchedInboundExists(tx: Db.TransactionClient, inboundKey: string): Promise<boolean> {
  return (await tx.unmatchedInbound.count({ where: { inboundKey } })) > 0;
}

/** A page of the unmatched texts (of one business, when given), newest first, after the cursor (creation time, then id). */
export function listUnmatchedInbound(prisma: Prisma, page: { business?: string; after?: { createdAt: Date; id: string }; take: number }) {
  const { business, after, take } = page;
  return prisma.unmatchedInbound.findMany({
    where: {
      ...(business !== undefined && { business }),
      ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
  });
}
