import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';

/*
 * Texts that came in from a number no outbound message went to from our sender: kept (not dropped) for
 * an operator to look at, and counted. Written only by storeInbound (src/db/messages/inbound.ts), in the
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
}

export async function insertUnmatchedInbound(tx: Db.TransactionClient, text: UnmatchedText): Promise<void> {
  await tx.unmatchedInbound.create({ data: text });
}

export async function unmatchedInboundExists(tx: Db.TransactionClient, inboundKey: string): Promise<boolean> {
  return (await tx.unmatchedInbound.count({ where: { inboundKey } })) > 0;
}

/** A page of the unmatched texts, newest first, after the cursor (creation time, then id). */
export function listUnmatchedInbound(prisma: Prisma, page: { after?: { createdAt: Date; id: string }; take: number }) {
  const { after, take } = page;
  return prisma.unmatchedInbound.findMany({
    where: after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {},
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
  });
}
