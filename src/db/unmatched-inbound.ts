import type { Prisma as Db } from '../generated/prisma/client';

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
