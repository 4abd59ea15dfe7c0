import { Prisma as Db } from '../../generated/prisma/client';
import type { Prisma } from '../prisma';

type Tx = Db.TransactionClient;

/** The client's messages that have not left yet: what its erasure cancels first. */
export async function scheduledMessagesOf(prisma: Prisma, clientPk: string): Promise<{ id: string }[]> {
  return prisma.message.findMany({ where: { clientPk, status: 'scheduled' }, select: { id: true } });
}

/**
 * An erased client's messages keep their ids, dates, statuses and carrier's record, not the phone,
 * name or text; what the log provider recorded of them goes.
 */
export async function eraseClientMessages(tx: Tx, clientPk: string): Promise<void> {
  await tx.logDelivery.deleteMany({ where: { message: { clientPk } } });
  await tx.message.updateMany({ where: { clientPk }, data: { phone: null, name: null, text: '', media: Db.DbNull, template: Db.DbNull } });
}
