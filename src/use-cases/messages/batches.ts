import type { Client as TemporalClient } from '@temporalio/client';
import type { MessageBatch } from '../../generated/prisma/client';
import { closeScheduledInBatch, countBatchMessages, countMessagesOfBatches, findOwnedBatch as findBatch, listOwnedBatches } from '../../db/message-batches';
import { pageOf, parsePage } from '../input/page';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import type { MessageStatus } from '../../domain';
import { wakeMessageBatchWorkflow } from '../../starters/send-message-batch-workflow';
import { NotFound } from '../errors';

const BATCH_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type BatchWithCounts = MessageBatch & { counts: Partial<Record<MessageStatus, number>> };

/** The caller's batch with its messages counted by status, or the same 404 whether missing, another's or not an id. */
export async function findOwnedBatch(prisma: Prisma, scope: Scope, id: string): Promise<BatchWithCounts> {
  const batch = BATCH_ID.test(id) ? await findBatch(prisma, scope, id) : null;
  if (!batch) throw new NotFound('Batch not found');
  return { ...batch, counts: await countBatchMessages(prisma, batch.id) };
}

/** Cancels every message of the batch that has not left yet, then wakes its run so that it ends when nothing is left. */
export async function cancelBatch(deps: { prisma: Prisma; temporal: TemporalClient; taskQueue: string }, scope: Scope, id: string): Promise<BatchWithCounts> {
  const batch = await findOwnedBatch(deps.prisma, scope, id);
  if (await closeScheduledInBatch(deps.prisma, batch.id, { status: 'canceled', by: 'api' })) {
    await wakeMessageBatchWorkflow(deps.temporal, deps.taskQueue, { id: batch.id, business: batch.business, sendAt: batch.sendAt, accepted: batch.accepted });
  }
  return findOwnedBatch(deps.prisma, scope, batch.id);
}

/** A page of the caller's batches in this business, newest first (`?limit=`, `?cursor=`), each with its counts. */
export async function listBatches(prisma: Prisma, scope: Scope, query: unknown): Promise<{ batches: BatchWithCounts[]; nextCursor: string | null }> {
  const { limit, after } = parsePage(query);
  const { page, next_cursor: nextCursor } = pageOf(await listOwnedBatches(prisma, scope, { after, take: limit + 1 }), limit, (batch) => batch);
  const counts = await countMessagesOfBatches(prisma, page.map((b) => b.id));
  return { batches: page.map((b) => ({ ...b, counts: counts.get(b.id) ?? {} })), nextCursor };
}
