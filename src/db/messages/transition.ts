import type { Prisma as Db, Message } from '../../generated/prisma/client';
import type { EventReason, EventType, MessageStatus } from '../../domain';
import { messageEvent, withEvents } from '../events';
import type { Prisma } from '../prisma';

export type MessageWithClient = Message & { client: { id: string } | null };

export const withClientId = { client: { select: { id: true } } } as const;

/**
 * Moves the message `where` selects (by id and the status it leaves) and records the event of the
 * move in the same transaction; the moved row, or null when it was not in that status.
 */
export async function transition(
  prisma: Prisma,
  where: { id: string; status: MessageStatus },
  data: Db.MessageUpdateManyMutationInput & { status: MessageStatus },
  type: EventType,
  reason: EventReason,
): Promise<MessageWithClient | null> {
  return withEvents(prisma, async (tx, record) => {
    const [row] = await tx.message.updateManyAndReturn({ where, data, include: withClientId });
    if (row) await record(messageEvent(type, row, reason));
    return row ?? null;
  });
}
