import { messageWorkflowId, UNSENT_STATUSES, type MessageStatus } from '../../domain';
import type { Prisma } from '../prisma';
import type { ReconcilerFilter } from '../reconciler-filter';
import type { Scope } from '../scope';
import { withClientId, type MessageWithClient } from './transition';

/** Messages not yet sent, created before `before` (of one business if given), by id after `afterId`: what the reconciler checks. */
export function unsentMessagesCreatedBefore(prisma: Prisma, filter: ReconcilerFilter, afterId: string | undefined, take: number) {
  return prisma.message.findMany({
    where: {
      status: { in: [...UNSENT_STATUSES] },
      ...(filter.unconfirmedOnly && { startConfirmed: false }),
      createdAt: { lt: filter.before, ...(filter.since && { gte: filter.since }) },
      ...(filter.business && { business: filter.business }),
      ...(filter.workflowIds && { workflowId: { in: filter.workflowIds } }),
      ...(afterId && { id: { gt: afterId } }),
    },
    select: { id: true, business: true, workflowId: true, sendAt: true, deferredUntil: true, batchId: true, client: { select: { id: true } } },
    orderBy: { id: 'asc' },
    take,
  }).then((rows) => rows.map((row) => ({ ...row, workflowId: row.workflowId ?? messageWorkflowId(row.business, row.id) })));
}

export async function messageStatus(prisma: Prisma, id: string): Promise<MessageStatus | null> {
  const message = await prisma.message.findUnique({ where: { id }, select: { status: true } });
  return message?.status ?? null;
}

/** How many of the table's messages are in each status. */
export async function countMessagesByStatus(prisma: Prisma): Promise<Map<MessageStatus, number>> {
  const groups = await prisma.message.groupBy({ by: ['status'], _count: { _all: true } });
  return new Map(groups.map((g) => [g.status, g._count._all]));
}

export function findMessage(prisma: Prisma, id: string): Promise<MessageWithClient | null> {
  return prisma.message.findUnique({ where: { id }, include: withClientId });
}

export function findOwnedMessage(prisma: Prisma, scope: Scope, id: string): Promise<MessageWithClient | null> {
  return prisma.message.findFirst({ where: { id, ...scope }, include: withClientId });
}

/** The position after the last message of a page: newest first, ties broken by id. */
export type MessageCursor = { createdAt: Date; id: string };

export interface MessageFilter {
  status?: MessageStatus;
  direction?: 'inbound' | 'outbound';
  clientId?: string;
  after?: MessageCursor;
  take: number;
}

export function listOwnedMessages(prisma: Prisma, scope: Scope, filter: MessageFilter): Promise<MessageWithClient[]> {
  const { status, direction, clientId, after, take } = filter;
  return prisma.message.findMany({
    where: {
      ...scope,
      ...(status && { status }),
      ...(direction && { direction }),
      ...(clientId && { client: { id: clientId, liveSlot: true } }),
      ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
    },
    include: withClientId,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
  });
}

/** These messages with their client's id, in no particular order. */
export function messagesByIds(prisma: Prisma, ids: string[]): Promise<MessageWithClient[]> {
  return ids.length === 0 ? Promise.resolve([]) : prisma.message.findMany({ where: { id: { in: ids } }, include: withClientId });
}
