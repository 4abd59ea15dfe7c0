import type { WebhookDeliveryStatus } from '../generated/prisma/enums';
import { disableSubscription } from './webhook-subscriptions';
import type { NewDelivery } from './events';
import type { Prisma } from './prisma';

/*
 * Every change of a `webhook_deliveries` row: created pending with its event (src/db/events.ts), handed
 * over once its workflow was started, then pending → delivered (2xx), failed (refused: 4xx, 410), or
 * abandoned (retries ran out, the subscription was disabled, an operator canceled it). Each ending is a
 * compare-and-set on `pending`, and `last_error` is our own bounded text, never the receiver's body.
 */

const MAX_ERROR_LENGTH = 300;
const bounded = (text: string) => text.slice(0, MAX_ERROR_LENGTH);

export type WebhookAttempt =
  | { state: 'attempt'; delivery: NonNullable<Awaited<ReturnType<typeof loadAttempt>>> }
  | { state: 'done'; status: WebhookDeliveryStatus }
  | { state: 'missing' };

function loadAttempt(prisma: Prisma, id: string) {
  return prisma.webhookDelivery.findUnique({ where: { id }, include: { event: true, subscription: true } });
}

/** Counts one attempt of a pending delivery, and reads what it sends and where; says so when it is over or gone. */
export async function countWebhookAttempt(prisma: Prisma, id: string): Promise<WebhookAttempt> {
  await prisma.webhookDelivery.updateMany({ where: { id, status: 'pending' }, data: { attempts: { increment: 1 } } });
  const delivery = await loadAttempt(prisma, id);
  if (!delivery) return { state: 'missing' };
  if (delivery.status !== 'pending') return { state: 'done', status: delivery.status };
  return { state: 'attempt', delivery };
}

/** pending → delivered. */
export async function markWebhookDelivered(prisma: Prisma, id: string, statusCode: number, now = new Date()): Promise<void> {
  await prisma.webhookDelivery.updateMany({
    where: { id, status: 'pending' },
    data: { status: 'delivered', deliveredAt: now, lastStatusCode: statusCode, lastError: null, nextAttemptAt: null },
  });
}

/** pending → failed: the receiver refused it. A 410 Gone also disables the subscription, in the same transaction. */
export async function markWebhookRefused(prisma: Prisma, id: string, answer: { statusCode: number | null; error: string; gone: boolean }): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const [failed] = await tx.webhookDelivery.updateManyAndReturn({
      where: { id, status: 'pending' },
      data: { status: 'failed', lastStatusCode: answer.statusCode, lastError: bounded(answer.error), nextAttemptAt: null },
    });
    if (failed && answer.gone) await disableSubscription(tx, failed.subscriptionId, 'The receiver answered 410 Gone');
  });
}

/** Stays pending: what the last attempt got, and when the next one is due (as far as known). */
export async function recordWebhookRetry(
  prisma: Prisma,
  id: string,
  answer: { statusCode: number | null; error: string; nextAttemptAt: Date | null },
): Promise<void> {
  await prisma.webhookDelivery.updateMany({
    where: { id, status: 'pending' },
    data: { lastStatusCode: answer.statusCode, lastError: bounded(answer.error), nextAttemptAt: answer.nextAttemptAt },
  });
}

/** pending → abandoned, with why, followed by what the last attempt got (`Gave up retrying: Receiver answered 503 …`). */
export async function abandonWebhookDelivery(prisma: Prisma, id: string, reason: string): Promise<void> {
  await prisma.$executeRaw`
    UPDATE webhook_deliveries
       SET status = 'abandoned', last_error = left(${reason} || coalesce(': ' || last_error, ''), ${MAX_ERROR_LENGTH}), next_attempt_at = NULL, updated_at = now()
     WHERE id = ${id}::uuid AND status = 'pending'`;
}

/** Marks deliveries whose workflow was started (or found started). */
export async function markHandedOver(prisma: Prisma, ids: string[], now = new Date()): Promise<void> {
  if (ids.length === 0) return;
  await prisma.webhookDelivery.updateMany({ where: { id: { in: ids }, handedOverAt: null }, data: { handedOverAt: now } });
}

/** Pending deliveries created before `before` whose workflow was never started: what the sweep hands over. */
export async function deliveriesNotHandedOver(prisma: Prisma, before: Date, take: number): Promise<NewDelivery[]> {
  const rows = await prisma.webhookDelivery.findMany({
    where: { status: 'pending', handedOverAt: null, createdAt: { lt: before } },
    select: { id: true, event: { select: { business: true, type: true, data: true } } },
    orderBy: { createdAt: 'asc' },
    take,
  });
  return rows.map((row) => {
    const client = (row.event.data as { client?: unknown } | null)?.client;
    return { id: row.id, business: row.event.business, type: row.event.type, clientId: typeof client === 'string' ? client : null };
  });
}

/** Pending deliveries created before `before`, long past any retry: their workflow is gone (terminated). */
export async function abandonStaleDeliveries(prisma: Prisma, before: Date): Promise<number> {
  const abandoned = await prisma.webhookDelivery.updateMany({
    where: { status: 'pending', createdAt: { lt: before } },
    data: { status: 'abandoned', lastError: 'No delivery workflow finished it (terminated?)', nextAttemptAt: null },
  });
  return abandoned.count;
}

/** The subscription's most recent deliveries, newest first, with their event's id and type. */
export function recentDeliveries(prisma: Prisma, subscriptionId: string, take: number) {
  return prisma.webhookDelivery.findMany({
    where: { subscriptionId },
    include: { event: { select: { id: true, type: true, createdAt: true } } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
  });
}

/** The delivery backlog: deliveries still pending, and the creation time of the oldest (the worker's metrics). */
export async function pendingDeliveryBacklog(prisma: Prisma): Promise<{ pending: number; oldestCreatedAt: Date | null }> {
  const backlog = await prisma.webhookDelivery.aggregate({ where: { status: 'pending' }, _count: { _all: true }, _min: { createdAt: true } });
  return { pending: backlog._count._all, oldestCreatedAt: backlog._min.createdAt };
}

/** Whether the sweep has work: a pending delivery never handed over, created before `before`. */
export async function hasDeliveriesToSweep(prisma: Prisma, before: Date): Promise<boolean> {
  return (await prisma.webhookDelivery.findFirst({ where: { status: 'pending', handedOverAt: null, createdAt: { lt: before } }, select: { id: true } })) !== null;
}
