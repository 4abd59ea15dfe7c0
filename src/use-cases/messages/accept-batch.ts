import { createHash, randomUUID } from 'node:crypto';
import type { MessageBatch } from '../../generated/prisma/client';
import { findAgents } from '../../db/agents';
import { findClients } from '../../db/clients';
import { closeScheduledInBatch, insertMessageBatch } from '../../db/message-batches';
import { OPTED_OUT as OPTED_OUT_TEXT } from '../../db/messages';
import { optedOutAmong } from '../../db/opt-outs';
import type { Scope } from '../../db/scope';
import { refuseWhileKnownDown } from '../../starters/availability';
import { startMessageBatchWorkflow, type ScheduledBatch } from '../../starters/send-message-batch-workflow';
import { Conflict, Invalid, refusalOf, Unavailable, type UseCaseError } from '../errors';
import { parseBatchRequest, type BatchRequest } from './batch-request';
import { idempotencyKeyReused, inMessagePlace, newMessageOf, RETRY_AFTER_SECONDS, type AcceptDeps } from './accept';
import { readIdempotencyKey } from '../input/idempotency-key';
import { answerFirstResponse } from '../routing/answer';
import { sendersOf } from './sender';
import { checkChannelRules, senderChannels } from './channel-rules';
import { refuseMediaOnPrivateHosts } from './media-hosts';
import { findTemplate } from '../../db/templates';
import { numberChannelOf, type Channel } from '../../domain/channels';

/** What a batch's accept needs: a single message's (the same backpressure, carrier and opt-outs). */
export type AcceptBatchDeps = AcceptDeps;

/** One recipient's result, in request order: accepted (`_id`, `send_at`) or refused with the single send's problem. */
export type RecipientResult =
  | { index: number; _id: string; status: 'scheduled'; send_at: string }
  | { index: number; status: 'rejected'; error: { type: string; status: number; detail: string; hint?: string } };

export interface BatchAnswer {
  batch: MessageBatch | null;
  results: RecipientResult[];
  replayed: boolean;
}

/** Starts the stored batch's workflow; the Nexus operation starts it with its completion callback. */
export type StartBatchWorkflow = (batch: ScheduledBatch) => Promise<void>;

const OPTED_OUT = new Conflict(OPTED_OUT_TEXT);
const OPTED_OUT_OF_WHATSAPP = new Conflict('Recipient has opted out of WhatsApp messages');

function refused(index: number, error: UseCaseError): RecipientResult {
  const { status, type, detail, hint } = refusalOf(error);
  return { index, status: 'rejected', error: { type, status, detail, ...(hint && { hint }) } };
}

function batchHash(request: BatchRequest, body: Record<string, unknown>): string {
  return `v1:${createHash('sha256').update(JSON.stringify([body.text_message ?? null, request.fingerprint])).digest('hex')}`;
}

/**
 * Accepts a campaign: every valid recipient becomes a scheduled message of one batch, stored together,
 * sent by one workflow; each refused one gets the single send's problem. 400 (Invalid) when none is
 * valid, with nothing stored. A repeat with the same Idempotency-Key and request answers the same.
 */
export async function sendMessageBatchRequest(
  deps: AcceptBatchDeps,
  scope: Scope,
  body: unknown,
  idempotencyKeyHeader: string | undefined,
  requestId?: string,
  start: StartBatchWorkflow = (batch) => startMessageBatchWorkflow(deps.temporal, deps.taskQueue, batch),
): Promise<BatchAnswer> {
  const idempotencyKey = readIdempotencyKey(idempotencyKeyHeader);
  return inMessagePlace(deps, scope, async () => {
    const request = await parseBatchRequest(
      body,
      (ids) => findClients(deps.prisma, scope, ids),
      undefined,
      (ids) => findAgents(deps.prisma, scope, ids),
      (id) => findTemplate(deps.prisma, scope, id),
    );
    // Every recipient carries the campaign's media: its hosts are resolved once.
    const first = request.recipients.find((outcome) => 'request' in outcome);
    if (first && 'request' in first) await refuseMediaOnPrivateHosts(first.request.media, deps);
    refuseWhileKnownDown(deps.temporal);
    return storeAndStart(deps, scope, request, (body ?? {}) as Record<string, unknown>, idempotencyKey, requestId, start);
  });
}

async function storeAndStart(
  deps: AcceptBatchDeps,
  scope: Scope,
  request: BatchRequest,
  body: Record<string, unknown>,
  idempotencyKey: string | null,
  requestId: string | undefined,
  start: StartBatchWorkflow,
): Promise<BatchAnswer> {
  const hash = idempotencyKey ? batchHash(request, body) : null;
  const phones = request.recipients.flatMap((r) => ('request' in r ? [r.request.phone] : []));
  // Every recipient shares the campaign's channel and media.
  const sample = request.recipients.find((r): r is Extract<typeof r, { request: unknown }> => 'request' in r)?.request;
  const channel = sample?.channel ?? 'sms';
  const senderOf = await sendersOf(deps, scope.business, phones, numberChannelOf(channel, sample?.media.length ?? 0));
  const optedOut = await optedOutPhones(deps, scope.business, phones, senderOf, channel);
  const carried = senderChannels(deps);
  // Once per sender: a campaign's recipients share a few.
  const registered = deps.registrations?.gate();

  const results: RecipientResult[] = [];
  const messages = [];
  let sendAt: Date | null = null;
  for (const [index, recipient] of request.recipients.entries()) {
    if ('error' in recipient) {
      results.push(refused(index, recipient.error));
      continue;
    }
    const r = recipient.request;
    if (optedOut.has(r.phone)) {
      results.push(refused(index, channel === 'whatsapp' ? OPTED_OUT_OF_WHATSAPP : OPTED_OUT));
      continue;
    }
    try {
      await registered?.(scope.business, senderOf(r.phone));
      await checkChannelRules(deps, scope, r, senderOf(r.phone), carried);
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      results.push(refused(index, error));
      continue;
    }
    const message = newMessageOf(r, { sender: senderOf(r.phone), idempotencyKey: null, requestHash: null });
    sendAt ??= r.sendAt;
    messages.push(message);
    results.push({ index, _id: message.id, status: 'scheduled', send_at: r.sendAt.toISOString() });
  }

  const first = request.recipients.find((r): r is Extract<typeof r, { request: unknown }> => 'request' in r)?.request;
  if (messages.length === 0) {
    // Nothing stored; with a key, a repeat is refused the same way.
    throw new BatchRefused(results);
  }
  const stored = await insertMessageBatch(deps.prisma, scope, {
    id: randomUUID(),
    sendAt: sendAt!,
    sendWindow: first?.sendWindow ?? null,
    idempotencyKey,
    requestHash: hash,
    total: request.recipients.length,
    results,
  }, messages);
  if (stored.replayed && stored.batch.requestHash !== hash) throw idempotencyKeyReused();
  const batch = stored.batch;
  const answer: BatchAnswer = { batch, results: stored.replayed ? (batch.results as RecipientResult[]) : results, replayed: stored.replayed };

  try {
    // A replay heals a crash between storing and starting (a closed run is never started again).
    if (!stored.replayed || batch.finishedAt === null) await start({ id: batch.id, business: batch.business, sendAt: batch.sendAt, accepted: batch.accepted, requestId });
  } catch (error) {
    deps.log?.(error);
    if (idempotencyKey) throw new Unavailable('The batch is stored but not scheduled yet: repeat the request with the same Idempotency-Key', RETRY_AFTER_SECONDS);
    await closeScheduledInBatch(deps.prisma, batch.id, { status: 'failed', error: 'Could not be scheduled' });
    throw new Unavailable('The batch could not be scheduled and will not be sent: try again', RETRY_AFTER_SECONDS);
  }
  if (!stored.replayed) {
    for (const recipient of request.recipients) {
      if ('request' in recipient && recipient.request.client && recipient.request.agent && !optedOut.has(recipient.request.phone)) {
        await answerFirstResponse(deps, { clientPk: recipient.request.client.pk, agentPk: recipient.request.agent.pk });
      }
    }
  }
  return answer;
}

/** The phones a message from the business (each from its own sender) may not reach: one query per sender. */
async function optedOutPhones(deps: AcceptBatchDeps, business: string, phones: string[], senderOf: (phone: string) => string | null, channel: Channel): Promise<Set<string>> {
  if (!deps.carrier) return new Set();
  const bySender = new Map<string, string[]>();
  for (const phone of phones) {
    const sender = senderOf(phone)!;
    const some = bySender.get(sender) ?? [];
    some.push(phone);
    bySender.set(sender, some);
  }
  const optedOut = new Set<string>();
  for (const [sender, some] of bySender) for (const phone of await optedOutAmong(deps.prisma, business, sender, some, channel)) optedOut.add(phone);
  return optedOut;
}

/** No recipient was valid: a 400 whose body still lists each recipient's problem. */
export class BatchRefused extends Invalid {
  constructor(readonly results: RecipientResult[]) {
    super('No recipient could be accepted: see results');
  }
}
