import { Prisma as Db, type MessageBatch } from '../generated/prisma/client';
import { messageBatchWorkflowId, UNSENT_STATUSES, type MessageStatus } from '../domain';
import { messageEvent, withEvents } from './events';
import { scheduledMessageRow, OPTED_OUT, type MessageWithClient, type NewMessage } from './messages';
import { withClientId } from './messages/transition';
import { DUE_AT } from './message-due';
import { isoOrNull, jsonOrNull } from './unnest-values';
import { FORBIDS_MESSAGE } from './opt-outs';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/*
 * Every change of a `message_batches` row: inserted with its messages on accept (one statement for the
 * messages, one transaction in all), `chunks_claimed` moved on by its workflow's claims (claimBatchChunk,
 * in the claim's own transaction), `finished_at` set when its workflow found nothing left.
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
                            send_window, deferred_until, sender, batch_id, channel, media, template, suggestions, created_at, updated_at)
      SELECT m.id, ${scope.business}, ${scope.ownerId}, m.client_pk, 'text', m.phone, m.name, m.text, m.send_at, ${workflowId}, m.encoding, m.segments,
             m.send_window::jsonb, m.deferred_until, m.sender, ${batch.id}::uuid, m.channel, m.media::jsonb, m.template::jsonb, m.suggestions::jsonb, ${now}, ${now}
        FROM unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.clientPk)}::uuid[], ${rows.map((r) => r.phone)}::text[],
                    ${rows.map((r) => r.name)}::text[], ${rows.map((r) => r.text)}::text[], ${rows.map((r) => r.sendAt.toISOString())}::timestamptz[],
                    ${rows.map((r) => r.encoding)}::text[], ${rows.map((r) => r.segments ?? 1)}::int[],
                    ${rows.map((r) => jsonOrNull(r.sendWindow))}::text[], ${rows.map((r) => isoOrNull(r.deferredUntil))}::timestamptz[], ${rows.map((r) => r.sender)}::text[],
                    ${rows.map((r) => r.channel)}::text[], ${rows.map((r) => jsonOrNull(r.media))}::text[], ${rows.map((r) => jsonOrNull(r.template))}::text[],
                    ${rows.map((r) => jsonOrNull(r.suggestions))}::text[])
             AS m(id, client_pk, phone, name, text, send_at, encoding, segments, send_window, deferred_until, sender, channel, media, template, suggestions)`;
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

/** A page of the caller's batches, newest first, after the cursor (creation time, then id). */
export function listOwnedBatches(prisma: Prisma, scope: Scope, page: { after?: { createdAt: Date; id: string }; take: number }): Promise<MessageBatch[]> {
  const { after, take } = page;
  return prisma.messageBatch.findMany({
    where: { ...scope, ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
  });
}

/** The messages of each batch counted by status, in one query. */
export async function countMessagesOfBatches(prisma: Prisma, batchIds: string[]): Promise<Map<string, Partial<Record<MessageStatus, number>>>> {
  const counts = new Map(batchIds.map((id) => [id, {} as Partial<Record<MessageStatus, number>>]));
  if (batchIds.length === 0) return counts;
  const groups = await prisma.message.groupBy({ by: ['batchId', 'status'], where: { batchId: { in: batchIds } }, _count: { _all: true } });
  for (const g of groups) if (g.batchId) counts.get(g.batchId)![g.status] = g._count._all;
  return counts;
}

/** Its workflow found nothing left to send. */
export async function markBatchFinished(prisma: Prisma, batchId: string, now = new Date()): Promise<void> {
  await prisma.messageBatch.updateMany({ where: { id: batchId, finishedAt: null }, data: { finishedAt: now } });
}

/*
 * A batch's messages (POST /messages/batch), moved together by their batch's workflow: each statement
 * takes a chunk of rows and writes their events in bulk, so that a message costs the provider call and
 * the one statement recording its acceptance, and everything else is paid once a chunk.
 */

/** When the batch's next still-scheduled message is due (its send window may defer it); null when none is left. */
export async function nextDueInBatch(prisma: Prisma, batchId: string): Promise<Date | null> {
  const [row] = await prisma.$queryRaw<{ due: Date | null }[]>`SELECT min(${DUE_AT}) AS due FROM messages m WHERE m.batch_id = ${batchId}::uuid AND m.status = 'scheduled'`;
  return row?.due ?? null;
}

async function rowsWithClient(tx: Db.TransactionClient, ids: string[]): Promise<MessageWithClient[]> {
  return ids.length === 0 ? [] : tx.message.findMany({ where: { id: { in: ids } }, include: withClientId, orderBy: { id: 'asc' } });
}

/**
 * Claims chunk `chunk` of the batch: its messages due by `dueBy` whose recipient opted out go scheduled →
 * suppressed, then up to `limit` due ones scheduled → sending with `batch_chunk = chunk`, counting the
 * chunk's first hand-over attempt (`attempts = 1`, by `provider`) in the same write. `dueBy` is the
 * run's clock, not this process's, so that a worker whose clock lags never leaves the run finding nothing due. A claim of a
 * chunk that already has rows (a retried claim, or a new run resuming) takes nothing more and reports
 * the chunk's rows still sending. Messages canceled before it are simply not taken.
 */
export async function claimBatchChunk(
  prisma: Prisma,
  input: { batchId: string; chunk: number; limit: number; dueBy: Date; provider: string },
  now = new Date(),
): Promise<{ sending: number; suppressed: number; existed: boolean }> {
  const { batchId, chunk, limit, dueBy, provider } = input;
  return withEvents(prisma, async (tx, _record, recordMany) => {
    // One claim at a time per batch: a resumed run and a late retry of its predecessor never split rows.
    await tx.$executeRaw`SELECT 1 FROM message_batches WHERE id = ${batchId}::uuid FOR UPDATE`;
    const [existing] = await tx.$queryRaw<{ total: number; sending: number }[]>`
      SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'sending')::int AS sending FROM messages WHERE batch_id = ${batchId}::uuid AND batch_chunk = ${chunk}`;
    if (existing.total > 0) return { sending: existing.sending, suppressed: 0, existed: true };
    const suppressed = await tx.$queryRaw<{ id: string }[]>`
      UPDATE messages m SET status = 'suppressed', suppressed_at = ${now}, suppressed_reason = ${OPTED_OUT}, updated_at = ${now}
       WHERE m.batch_id = ${batchId}::uuid AND m.status = 'scheduled' AND ${DUE_AT} <= ${dueBy}
         AND EXISTS (SELECT 1 FROM opt_outs o WHERE ${FORBIDS_MESSAGE})
      RETURNING m.id::text`;
    const claimed = await tx.$queryRaw<{ id: string }[]>`
      UPDATE messages SET status = 'sending', dispatched_at = ${now}, batch_chunk = ${chunk}, attempts = 1, provider = ${provider}, updated_at = ${now}
       WHERE id IN (SELECT m.id FROM messages m WHERE m.batch_id = ${batchId}::uuid AND m.status = 'scheduled' AND ${DUE_AT} <= ${dueBy}
                     ORDER BY ${DUE_AT}, m.id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING id::text`;
    await tx.$executeRaw`UPDATE message_batches SET chunks_claimed = GREATEST(chunks_claimed, ${chunk + 1}), updated_at = ${now} WHERE id = ${batchId}::uuid`;
    const changed = await rowsWithClient(tx, [...suppressed, ...claimed].map((r) => r.id));
    if (changed.length > 0) {
      const scope = { business: changed[0].business, ownerId: changed[0].ownerId };
      await recordMany(scope, changed.map((row) => messageEvent(row.status === 'suppressed' ? 'message.suppressed' : 'message.sending', row, 'api')));
    }
    return { sending: claimed.length, suppressed: suppressed.length, existed: false };
  });
}

/** The chunks of the batch with messages still sending (a run resuming after a crash or a Terminate). */
export async function chunksStillSending(prisma: Prisma, batchId: string): Promise<number[]> {
  const rows = await prisma.$queryRaw<{ chunk: number }[]>`
    SELECT DISTINCT batch_chunk AS chunk FROM messages WHERE batch_id = ${batchId}::uuid AND status = 'sending' AND batch_chunk IS NOT NULL ORDER BY 1`;
  return rows.map((r) => r.chunk);
}

/** What handing a chunk's message over needs (the webhook body, the carrier's send). */
export interface ChunkMessage {
  id: string;
  business: string;
  clientId: string | null;
  /** Null once its client was erased (it had already left `scheduled`). */
  phone: string | null;
  name: string | null;
  text: string;
  sender: string | null;
  dispatchedAt: Date;
  ownerId: string;
  clientPk: string | null;
  channel: string;
  media: unknown;
  template: unknown;
  suggestions: unknown;
  /** Attempts before this one: above 0, an earlier attempt may have reached the provider. */
  attempts: number;
}

/**
 * The chunk's messages still sending and not yet accepted by the provider. The claim counted the first
 * attempt; a retry (`retry`) counts one more for each.
 */
export async function startChunkAttempt(prisma: Prisma, input: { batchId: string; chunk: number; provider: string; retry: boolean }): Promise<ChunkMessage[]> {
  type Row = Omit<ChunkMessage, 'clientId' | 'dispatchedAt' | 'ownerId' | 'clientPk'> & { client_id: string | null; dispatched_at: Date; owner_id: string; client_pk: string | null };
  const fields = Db.sql`m.id::text AS id, m.business, m.owner_id, m.client_pk::text AS client_pk, m.phone, m.name, m.text, m.sender, m.dispatched_at, m.attempts - 1 AS attempts, m.channel, m.media, m.template, m.suggestions,
                        (SELECT c.id FROM clients c WHERE c.pk = m.client_pk) AS client_id`;
  const ofChunk = Db.sql`m.batch_id = ${input.batchId}::uuid AND m.batch_chunk = ${input.chunk} AND m.status = 'sending' AND m.provider_accepted_at IS NULL`;
  const rows = input.retry
    ? await prisma.$queryRaw<Row[]>`UPDATE messages m SET attempts = m.attempts + 1, provider = ${input.provider} WHERE ${ofChunk} RETURNING ${fields}`
    : await prisma.$queryRaw<Row[]>`SELECT ${fields} FROM messages m WHERE ${ofChunk}`;
  return rows
    .map(({ client_id, dispatched_at, owner_id, client_pk, ...row }) => ({ ...row, clientId: client_id, dispatchedAt: dispatched_at, ownerId: owner_id, clientPk: client_pk }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * The provider accepted these messages: recorded before anything else is done with them, so that no
 * retry hands them over again. One statement for the acceptances that arrived together.
 */
export async function recordAcceptances(prisma: Prisma, accepted: { messageId: string; providerRef: string | null }[], now = new Date()): Promise<void> {
  if (accepted.length === 0) return;
  await prisma.$executeRaw`
    UPDATE messages m SET provider_accepted_at = ${now}, provider_ref = a.ref
      FROM unnest(${accepted.map((a) => a.messageId)}::uuid[], ${accepted.map((a) => a.providerRef)}::text[]) AS a(id, ref)
     WHERE m.id = a.id AND m.status = 'sending'`;
}

/** sending → sent for every message of the chunk the provider accepted, with their events; their `send_at` and `sent_at`. */
export async function markChunkSent(prisma: Prisma, input: { batchId: string; chunk: number }, now = new Date()): Promise<{ sendAt: Date; sentAt: Date }[]> {
  return withEvents(prisma, async (tx, _record, recordMany) => {
    const sent = await tx.message.updateManyAndReturn({
      where: { batchId: input.batchId, batchChunk: input.chunk, status: 'sending', providerAcceptedAt: { not: null } },
      data: { status: 'sent', sentAt: now, error: null },
      include: withClientId,
    });
    if (sent.length > 0) await recordMany({ business: sent[0].business, ownerId: sent[0].ownerId }, sent.map((row) => messageEvent('message.sent', row, 'api')));
    return sent.map((row) => ({ sendAt: row.sendAt, sentAt: now }));
  });
}

/** sending → failed for the chunk's messages the provider never accepted (retries exhausted), with their events. */
export async function failChunkRemaining(prisma: Prisma, input: { batchId: string; chunk: number; error: string }): Promise<number> {
  return withEvents(prisma, async (tx, _record, recordMany) => {
    const failed = await tx.message.updateManyAndReturn({
      where: { batchId: input.batchId, batchChunk: input.chunk, status: 'sending', providerAcceptedAt: null },
      data: { status: 'failed', error: input.error.slice(0, 1000) },
      include: withClientId,
    });
    if (failed.length > 0) await recordMany({ business: failed[0].business, ownerId: failed[0].ownerId }, failed.map((row) => messageEvent('message.failed', row, 'api')));
    return failed.length;
  });
}

/**
 * scheduled → canceled for every message of the batch still scheduled (its owner's cancel, an operator's
 * cancel of its run), or → failed when its workflow could not be started; how many moved.
 */
export async function closeScheduledInBatch(
  prisma: Prisma,
  batchId: string,
  to: { status: 'canceled'; by: 'api' | 'operator' } | { status: 'failed'; error: string },
  now = new Date(),
): Promise<number> {
  return withEvents(prisma, async (tx, _record, recordMany) => {
    const rows = await tx.message.updateManyAndReturn({
      where: { batchId, status: 'scheduled' },
      data: to.status === 'canceled' ? { status: 'canceled', canceledAt: now, canceledBy: to.by } : { status: 'failed', error: to.error },
      include: withClientId,
    });
    if (rows.length > 0) {
      const reason = to.status === 'canceled' ? to.by : 'api';
      await recordMany({ business: rows[0].business, ownerId: rows[0].ownerId }, rows.map((row) => messageEvent(`message.${to.status}`, row, reason)));
      // Nothing left to send (no chunk in flight either): the batch is finished now, not when its run next wakes.
      if ((await tx.message.count({ where: { batchId, status: { in: [...UNSENT_STATUSES] } } })) === 0) {
        await tx.messageBatch.updateMany({ where: { id: batchId, finishedAt: null }, data: { finishedAt: now } });
      }
    }
    return rows.length;
  });
}
