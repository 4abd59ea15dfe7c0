import { Prisma as Db, type MessageBatch } from '../generated/prisma/client';
import { messageBatchWorkflowId, type MessageStatus } from '../domain';
import { messageEvent, withEvents } from './events';
import { scheduledMessageRow, type MessageWithClient, type NewMessage } from './messages';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/*
 * Every change of a `message_batches` row: inserted with its messages on accept (one statement for the
 * messages, one transaction in all), `chunks_claimed` moved on by its workflow's claims (claimBatchChunk
 * in src/db/messages.ts, in the claim's own transaction),
 * `finished_at` set when its workflow found nothing left.
 */

export interface NewBatch {
  id: string;
  sendAt: Date;
  sendWindow: { from: string; to: string; timezone?: string } | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  total: number;
  /** The answer's results as first given, stored for a repeat of the request. */
  results: unknown[];
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * Stores the batch and its accepted messages (each with its message.scheduled event) in one transaction;
 * the messages in one statement. When the owner already used the Idempotency-Key, nothing is stored and
 * the first batch comes back as `replayed`.
 */
export async function insertMessageBatch(
  prisma: Prisma,
  scope: Scope,
  batch: NewBatch,
  messages: NewMessage[],
): Promise<{ batch: MessageBatch; messages: MessageWithClient[]; replayed: boolean }> {
  const now = new Date();
  const workflowId = messageBatchWorkflowId(scope.business, batch.id);
  const rows = messages.map((m) => scheduledMessageRow(scope, m, now, workflowId, batch.id));
  const inserted = await withEvents(prisma, async (tx, _record, recordMany) => {
    const [stored] = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO message_batches (id, business, owner_id, workflow_id, idempotency_key, request_hash, send_at, send_window, total, accepted, results, created_at, updated_at)
      VALUES (${batch.id}::uuid, ${scope.business}, ${scope.ownerId}, ${workflowId}, ${batch.idempotencyKey}, ${batch.requestHash}, ${batch.sendAt},
              ${batch.sendWindow === null ? null : JSON.stringify(batch.sendWindow)}::jsonb, ${batch.total}, ${rows.length}, ${JSON.stringify(batch.results)}::jsonb, ${now}, ${now})
      ON CONFLICT (business, owner_id, idempotency_key) DO NOTHING
      RETURNING id::text`;
    if (!stored) return false;
    if (rows.length === 0) return true;
    await tx.$executeRaw`
      INSERT INTO messages (id, business, owner_id, client_pk, message_type, phone, name, text, send_at, workflow_id, encoding, segments,
                            send_window, deferred_until, sender, batch_id, created_at, updated_at)
      SELECT m.id, ${scope.business}, ${scope.ownerId}, m.client_pk, 'text', m.phone, m.name, m.text, m.send_at, ${workflowId}, m.encoding, m.segments,
             m.send_window::jsonb, m.deferred_until, m.sender, ${batch.id}::uuid, ${now}, ${now}
        FROM unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.clientPk)}::uuid[], ${rows.map((r) => r.phone)}::text[],
                    ${rows.map((r) => r.name)}::text[], ${rows.map((r) => r.text)}::text[], ${rows.map((r) => r.sendAt.toISOString())}::timestamptz[],
                    ${rows.map((r) => r.encoding)}::text[], ${rows.map((r) => r.segments ?? 1)}::int[],
                    ${rows.map((r) => (r.sendWindow === null ? null : JSON.stringify(r.sendWindow)))}::text[],
                    ${rows.map((r) => iso(r.deferredUntil))}::timestamptz[], ${rows.map((r) => r.sender)}::text[])
             AS m(id, client_pk, phone, name, text, send_at, encoding, segments, send_window, deferred_until, sender)`;
    await recordMany(scope, rows.map((row) => messageEvent('message.scheduled', row, 'api')));
    return true;
  });
  if (inserted) {
    const stored: MessageBatch = {
      ...scope,
      id: batch.id,
      workflowId,
      idempotencyKey: batch.idempotencyKey,
      requestHash: batch.requestHash,
      sendAt: batch.sendAt,
      sendWindow: batch.sendWindow,
      total: batch.total,
      accepted: rows.length,
      results: batch.results as Db.JsonValue,
      chunksClaimed: 0,
      finishedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    return { batch: stored, messages: rows, replayed: false };
  }
  const first = batch.idempotencyKey ? await findBatchByIdempotencyKey(prisma, scope, batch.idempotencyKey) : null;
  if (!first) throw new Error(`Batch ${batch.id} was neither inserted nor found by its Idempotency-Key`);
  return { batch: first, messages: [], replayed: true };
}

export function findBatchByIdempotencyKey(prisma: Prisma, scope: Scope, idempotencyKey: string): Promise<MessageBatch | null> {
  return prisma.messageBatch.findFirst({ where: { ...scope, idempotencyKey } });
}

export function findOwnedBatch(prisma: Prisma, scope: Scope, id: string): Promise<MessageBatch | null> {
  return prisma.messageBatch.findFirst({ where: { ...scope, id } });
}

export function findBatch(prisma: Prisma, id: string): Promise<MessageBatch | null> {
  return prisma.messageBatch.findUnique({ where: { id } });
}

/** How many of the batch's messages are in each status. */
export async function countBatchMessages(prisma: Prisma, batchId: string): Promise<Partial<Record<MessageStatus, number>>> {
  const groups = await prisma.message.groupBy({ by: ['status'], where: { batchId }, _count: { _all: true } });
  return Object.fromEntries(groups.map((g) => [g.status, g._count._all]));
}

/** Its workflow found nothing left to send. */
export async function markBatchFinished(prisma: Prisma, batchId: string, now = new Date()): Promise<void> {
  await prisma.messageBatch.updateMany({ where: { id: batchId, finishedAt: null }, data: { finishedAt: now } });
}
