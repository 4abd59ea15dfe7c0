import { Prisma as Db, type Message } from '../generated/prisma/client';
import { messageWorkflowId, type EventReason, type EventType, type MessageClaim, type MessageStatus } from '../domain';
import { randomUUID } from 'node:crypto';
import { changeWithEvent, messageEvent, withEvents } from './events';
import { ownerOfNumber } from './business-numbers';
import { FORBIDS_MESSAGE, optOutScopeOf, recordOptOut } from './opt-outs';
import { insertUnmatchedInbound, unmatchedInboundExists } from './unmatched-inbound';
import type { Prisma } from './prisma';
import type { ReconcilerFilter } from './reconciler-filter';
import type { Scope } from './scope';

/*
 * Every change of a message row: scheduled on accept, then scheduled → sending → sent | failed by its
 * workflow (while sending, `provider_accepted_at` records the provider's 2xx), scheduled → suppressed
 * when its recipient opted out before it was due, scheduled → canceled by its owner, scheduled → failed
 * when it could not be scheduled; a carrier's receipts take sending | sent on to delivered |
 * undelivered | failed; an inbound text is inserted `received`.
 * Each transition is a compare-and-set on the status it leaves (or holds the row's lock), so racing
 * callers cannot both win, and records its event in its own transaction.
 */

export type MessageWithClient = Message & { client: { id: string } | null };

export interface NewMessage {
  id: string;
  clientPk: string | null;
  /** The client's id as its owner named it, for the event. */
  clientId: string | null;
  phone: string;
  name: string | null;
  text: string;
  sendAt: Date;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** `GSM-7` or `UCS-2`, and the SMS parts the text takes. */
  encoding: string;
  segments: number;
  /** The quiet-hours window as the caller gave it, and when the message goes out because of it (null: at send_at). */
  sendWindow: { from: string; to: string; timezone?: string } | null;
  deferredUntil: Date | null;
  /** The carrier's sender it goes out from (opt-outs and replies are kept against it); null without a carrier. */
  sender: string | null;
}

const withClientId = { client: { select: { id: true } } } as const;

export function findMessageByIdempotencyKey(prisma: Prisma, scope: Scope, idempotencyKey: string): Promise<MessageWithClient | null> {
  return prisma.message.findFirst({ where: { ...scope, idempotencyKey }, include: withClientId });
}

/** A scheduled message row as the insert stores it and its message.scheduled event shows it. */
export function scheduledMessageRow(scope: Scope, message: NewMessage, now: Date, workflowId: string, batchId: string | null): MessageWithClient {
  const { clientId, ...fields } = message;
  return {
    ...scope,
    ...fields,
    messageType: 'text',
    status: 'scheduled',
    workflowId,
    provider: null,
    providerRef: null,
    error: null,
    attempts: 0,
    createdAt: now,
    updatedAt: now,
    dispatchedAt: null,
    providerAcceptedAt: null,
    sentAt: null,
    canceledAt: null,
    canceledBy: null,
    direction: 'outbound',
    deliveredAt: null,
    errorCode: null,
    price: null,
    priceUnit: null,
    receiptAt: null,
    suppressedAt: null,
    suppressedReason: null,
    receivedAt: null,
    inboundKey: null,
    batchId,
    batchChunk: null,
    startConfirmed: false,
    client: clientId === null ? null : { id: clientId },
  };
}

/**
 * Inserts a scheduled message with its message.scheduled event in one statement, or — when the owner
 * already used its Idempotency-Key — returns the first one as `replayed`. The unique index on
 * (business, owner, key) decides between concurrent repeats.
 */
export async function insertScheduledMessage(prisma: Prisma, scope: Scope, message: NewMessage): Promise<{ message: MessageWithClient; replayed: boolean }> {
  const now = new Date();
  const { sendWindow } = message;
  const row = scheduledMessageRow(scope, message, now, messageWorkflowId(scope.business, message.id), null);
  const inserted = await changeWithEvent(
    prisma,
    Db.sql`INSERT INTO messages (id, business, owner_id, client_pk, message_type, phone, name, text, send_at, workflow_id, idempotency_key, request_hash,
                          encoding, segments, send_window, deferred_until, sender, created_at, updated_at)
      VALUES (${row.id}::uuid, ${row.business}, ${row.ownerId}, ${row.clientPk}::uuid, ${row.messageType}, ${row.phone}, ${row.name}, ${row.text}, ${row.sendAt},
              ${row.workflowId}, ${row.idempotencyKey}, ${row.requestHash}, ${row.encoding}, ${row.segments},
              ${sendWindow === null ? null : JSON.stringify(sendWindow)}::jsonb, ${row.deferredUntil}, ${row.sender}, ${now}, ${now})
      ON CONFLICT (business, owner_id, idempotency_key) DO NOTHING
      RETURNING 1`,
    messageEvent('message.scheduled', row, 'api'),
  );
  if (inserted) return { message: row, replayed: false };
  const winner = message.idempotencyKey ? await findMessageByIdempotencyKey(prisma, scope, message.idempotencyKey) : null;
  if (!winner) throw new Error(`Message ${message.id} was neither inserted nor found by its Idempotency-Key`);
  return { message: winner, replayed: true };
}

/** scheduled → failed, for a message whose workflow could not be started and that nobody can retry. */
export async function abandonScheduledMessage(prisma: Prisma, id: string): Promise<boolean> {
  return transition(prisma, { id, status: 'scheduled' }, { status: 'failed', error: 'Could not be scheduled' }, 'message.failed', 'api').then(Boolean);
}

/**
 * Moves the message `where` selects (by id and the status it leaves) and records the event of the
 * move in the same transaction; the moved row, or null when it was not in that status.
 */
async function transition(
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

/**
 * scheduled → canceled, by its owner through the API or by an operator who canceled its workflow in
 * the Temporal UI; false when it had already left `scheduled`.
 */
export async function cancelScheduledMessage(prisma: Prisma, id: string, now = new Date(), by: 'api' | 'operator' = 'api'): Promise<boolean> {
  const canceled = await transition(prisma, { id, status: 'scheduled' }, { status: 'canceled', canceledAt: now, canceledBy: by }, 'message.canceled', by);
  return canceled !== null;
}

/** Marks the messages whose workflow start the API saw succeed (not a status: `updated_at` stays). */
export async function confirmMessageStarts(prisma: Prisma, ids: string[]): Promise<void> {
  await prisma.$executeRaw`UPDATE messages SET start_confirmed = true WHERE id = ANY(${ids}::uuid[])`;
}

/** Messages not yet sent, created before `before` (of one business if given), by id after `afterId`: what the reconciler checks. */
export function unsentMessagesCreatedBefore(prisma: Prisma, filter: ReconcilerFilter, afterId: string | undefined, take: number) {
  return prisma.message.findMany({
    where: {
      status: { in: ['scheduled', 'sending'] },
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

export const OPTED_OUT = 'Recipient has opted out of text messages';

/**
 * scheduled → suppressed, when its recipient has opted out of its sender since it was accepted: it is
 * not sent. Returns whether it was suppressed (false: not scheduled, or not opted out).
 */
async function suppressIfOptedOut(prisma: Prisma, id: string, now = new Date()): Promise<boolean> {
  // Every due message passes here: one read decides, and only a message to an opted-out number pays
  // for the transaction (which checks again, under the update).
  const [optedOut] = await prisma.$queryRaw<{ one: number }[]>`
    SELECT 1 AS one FROM messages m JOIN opt_outs o ON ${FORBIDS_MESSAGE}
    WHERE m.id = ${id}::uuid AND m.status = 'scheduled' LIMIT 1`;
  if (!optedOut) return false;
  return withEvents(prisma, async (tx, record) => {
    const suppressed = await tx.$queryRaw<{ id: string }[]>`
      UPDATE messages m SET status = 'suppressed', suppressed_at = ${now}, suppressed_reason = ${OPTED_OUT}, updated_at = ${now}
      WHERE m.id = ${id}::uuid AND m.status = 'scheduled'
        AND EXISTS (SELECT 1 FROM opt_outs o WHERE ${FORBIDS_MESSAGE})
      RETURNING m.id::text`;
    if (suppressed.length === 0) return false;
    const row = await tx.message.findUniqueOrThrow({ where: { id }, include: withClientId });
    await record(messageEvent('message.suppressed', row, 'api'));
    return true;
  });
}

/**
 * scheduled → sending, fixing `dispatched_at`, only while still scheduled: a cancel that won the race
 * leaves it canceled. A retry after a lost completion finds it `sending` and claims it again, since only
 * the message's one workflow ever claims it. `scheduled` back means the claim did not take; null, no row.
 */
export async function claimMessageForSending(prisma: Prisma, id: string): Promise<MessageClaim | { status: 'scheduled' } | null> {
  if (await suppressIfOptedOut(prisma, id)) return { status: 'suppressed' };
  const claimed = await transition(prisma, { id, status: 'scheduled' }, { status: 'sending', dispatchedAt: new Date() }, 'message.sending', 'api');
  if (claimed) return { status: 'claimed' };
  const status = await messageStatus(prisma, id);
  if (status === null) return null;
  if (status === 'sending') return { status: 'claimed' };
  if (status === 'received') throw new Error(`Message ${id} is inbound: it is never sent`);
  return { status };
}

export type DeliveryAttempt =
  | { state: 'attempt'; message: MessageWithClient }
  /** The provider accepted it in an earlier attempt whose report was lost: nothing to hand over. */
  | { state: 'accepted'; message: MessageWithClient }
  | { state: 'notSending'; message: MessageWithClient | null };

/** Counts one hand-over attempt of a message that is `sending` and not yet accepted by the provider. */
export async function countDeliveryAttempt(prisma: Prisma, id: string, provider: string): Promise<DeliveryAttempt> {
  const counted = await prisma.message.updateMany({ where: { id, status: 'sending', providerAcceptedAt: null }, data: { attempts: { increment: 1 }, provider } });
  const message = await prisma.message.findUnique({ where: { id }, include: withClientId });
  if (message?.status === 'sending' && message.providerAcceptedAt) return { state: 'accepted', message };
  if (counted.count > 0 && message?.dispatchedAt) return { state: 'attempt', message };
  return { state: 'notSending', message };
}

/** Records, while still sending, that the provider accepted the message: a later attempt skips the hand-over. */
export async function recordProviderAccepted(prisma: Prisma, input: { messageId: string; providerRef: string | null }): Promise<void> {
  await prisma.message.updateMany({
    where: { id: input.messageId, status: 'sending' },
    data: { providerAcceptedAt: new Date(), providerRef: input.providerRef },
  });
}

/**
 * The message goes out from `to` instead of `from` (its number retired while it waited), unless its
 * sender was changed from `from` already: the sender it has now.
 */
export async function changeMessageSender(db: Prisma, input: { messageId: string; from: string; to: string }): Promise<string | null> {
  const changed = await db.message.updateMany({ where: { id: input.messageId, sender: input.from }, data: { sender: input.to, updatedAt: new Date() } });
  if (changed.count > 0) return input.to;
  return (await db.message.findUnique({ where: { id: input.messageId }, select: { sender: true } }))?.sender ?? null;
}

/** Whether another of our messages already holds this carrier message id (a lookup after a crash must not take it). */
export async function providerRefHeldByAnother(prisma: Prisma, input: { provider: string; providerRef: string; messageId: string }): Promise<boolean> {
  const holder = await prisma.message.findFirst({ where: { provider: input.provider, providerRef: input.providerRef, id: { not: input.messageId } }, select: { id: true } });
  return holder !== null;
}

/**
 * sending → sent; returns when it was due and when it left, or null when it was not sending. The
 * provider's reference is the one recorded on acceptance unless given (runs from before it was).
 */
export async function markMessageSent(
  prisma: Prisma,
  input: { messageId: string; provider: string; providerRef?: string | null },
): Promise<{ sendAt: Date; sentAt: Date } | null> {
  const sent = await transition(
    prisma,
    { id: input.messageId, status: 'sending' },
    { status: 'sent', sentAt: new Date(), provider: input.provider, ...(input.providerRef !== undefined && { providerRef: input.providerRef }), error: null },
    'message.sent',
    'api',
  );
  return sent ? { sendAt: sent.sendAt, sentAt: sent.sentAt! } : null;
}

/** A carrier's receipt as the row records it. */
export interface ReceiptUpdate {
  /** Our id, from the callback's URL or the carrier's client reference; otherwise the row is found by (provider, providerRef). */
  messageId?: string;
  provider: string;
  providerRef: string;
  status: 'sent' | 'delivered' | 'undelivered' | 'failed';
  errorCode?: string;
  /** The code means the recipient unsubscribed: the carrier's opt-out is recorded with the failure. */
  optOut?: boolean;
  price?: { amount: string; unit: string };
  /** When the carrier says it happened. */
  at?: Date;
  /** Our number the receipt is for, when the carrier names it: only a message sent from it moves. */
  sender?: string;
}

export type ReceiptOutcome =
  /** The receipt moved the status on (and its event was recorded); `sentAt`: when it had left, for the sent → delivered time. */
  | { applied: true; message: MessageWithClient; sentAt: Date | null }
  | { applied: false; message: MessageWithClient | null };

const FINAL_RECEIPT_EVENTS = { delivered: 'message.delivered', undelivered: 'message.undelivered', failed: 'message.failed' } as const;

/**
 * Applies a carrier's receipt to its outbound message, under the row's lock so that it and the run's
 * own `markMessageSent` / `markMessageFailed` (compare-and-sets on `sending`) cannot both win. Only
 * forward: `sending`/`sent` → `delivered`|`undelivered`|`failed`, which are final; a repeat, an older
 * status or an unknown message changes nothing. A `sent` receipt only records the carrier's reference
 * on a row still `sending`. A final receipt that overtakes the run (row still `sending`) ends the row
 * there, `sent_at` now: the run then finds it no longer sending and leaves it. A row that already has
 * another carrier reference is not this receipt's (a signed body replayed to another message's URL).
 */
export async function applyReceipt(prisma: Prisma, receipt: ReceiptUpdate, now = new Date()): Promise<ReceiptOutcome> {
  return withEvents(prisma, async (tx, record) => {
    const locate = receipt.messageId
      ? Db.sql`id = ${receipt.messageId}::uuid`
      : Db.sql`provider = ${receipt.provider} AND provider_ref = ${receipt.providerRef}`;
    const [found] = await tx.$queryRaw<{ id: string }[]>`SELECT id::text FROM messages WHERE ${locate} AND direction = 'outbound' LIMIT 1 FOR UPDATE`;
    const message = found ? await tx.message.findUnique({ where: { id: found.id }, include: withClientId }) : null;
    if (!message) return { applied: false, message: null };
    const ours = (message.provider === null || message.provider === receipt.provider) && (message.providerRef === null || message.providerRef === receipt.providerRef);
    // A message sent from a number (not a messaging service) moves only by a receipt for that number.
    const fromThatNumber = !receipt.sender || !message.sender?.startsWith('+') || message.sender === receipt.sender;
    if (!ours || !fromThatNumber || (message.status !== 'sending' && message.status !== 'sent')) return { applied: false, message };
    if (receipt.status === 'sent') {
      if (message.status !== 'sending' || message.providerRef !== null) return { applied: false, message };
      const [row] = await tx.message.updateManyAndReturn({ where: { id: message.id }, data: { providerRef: receipt.providerRef }, include: withClientId });
      return { applied: false, message: row };
    }
    const failed = receipt.status !== 'delivered';
    const [row] = await tx.message.updateManyAndReturn({
      where: { id: message.id },
      data: {
        status: receipt.status,
        receiptAt: now,
        sentAt: message.sentAt ?? now,
        provider: receipt.provider,
        providerRef: receipt.providerRef,
        ...(receipt.status === 'delivered' && { deliveredAt: receipt.at ?? now }),
        ...(receipt.errorCode !== undefined && { errorCode: receipt.errorCode.slice(0, 100) }),
        ...(receipt.price && { price: receipt.price.amount.slice(0, 40), priceUnit: receipt.price.unit.slice(0, 10) }),
        ...(failed && { error: `The carrier reported the message ${receipt.status}${receipt.errorCode ? ` (error ${receipt.errorCode.slice(0, 100)})` : ''}` }),
      },
      include: withClientId,
    });
    if (failed && receipt.optOut && row.sender) {
      const business = await optOutScopeOf(tx, row.business, row.sender);
      await recordOptOut(tx, { sender: row.sender, phone: row.phone, business, source: 'carrier', detail: receipt.errorCode ?? '', at: now });
    }
    await record(messageEvent(FINAL_RECEIPT_EVENTS[receipt.status], row, 'carrier'));
    return { applied: true, message: row, sentAt: message.sentAt ?? message.providerAcceptedAt };
  });
}

/** A text a client sent us, as the carrier reported it. */
export interface NewInbound {
  provider: string;
  providerRef: string;
  /** `<provider>:<carrier id>`: a repeated callback is stored once. */
  inboundKey: string;
  /** The client's number. */
  from: string;
  /** Our number it was sent to. */
  to: string;
  text: string;
  receivedAt: Date;
  /** The deployment's shared sender (the carrier's number or messaging service): whom a text to no business's number answers. */
  sender: string;
  /** On the shared sender, how far back a business's message to the phone counts (SHARED_SENDER_MATCH_DAYS). */
  sharedSenderMatchMs: number;
}

/** Whose text it is: the business whose number it went to, or the shared sender's. */
export type InboundTarget = { business: string } | { business: null };

export type InboundOutcome =
  | { stored: 'matched'; message: MessageWithClient }
  /** `ambiguous`: on the shared sender, more than one business or user had texted the phone. */
  | { stored: 'unmatched'; ambiguous: boolean }
  /** Its carrier id was stored before: nothing done. */
  | { stored: 'repeat' };

/**
 * The outbound messages a reply can answer: those the carrier took, `sent` or `delivered`, or still
 * `sending` with the carrier's acceptance recorded (a reply may beat the run's own mark). A message the
 * carrier refused (`failed`), reported it could not deliver (`undelivered`, `failed`) or has not taken
 * yet never reached the phone, so it must not claim the phone's replies (nor its STOP).
 */
const ANSWERABLE = [
  { status: { in: ['sent', 'delivered'] } },
  { status: 'sending', providerAcceptedAt: { not: null } },
] satisfies Db.MessageWhereInput[];
/** ANSWERABLE, for a query over `messages m`. */
const ANSWERABLE_SQL = Db.sql`(m.status IN ('sent', 'delivered') OR (m.status = 'sending' AND m.provider_accepted_at IS NOT NULL))`;

type Answered = { business: string; ownerId: string; clientPk: string | null; name: string | null };

/**
 * The message a reply answers. To a business's own number: that business's latest ANSWERABLE message
 * to the phone, nothing of another business consulted. To the shared sender: the latest one from it,
 * only when exactly one (business, user) texted the phone from it within the window; `ambiguous` when
 * several did (then no tenant sees a reply that may be another's).
 */
async function answeredBy(tx: Db.TransactionClient, inbound: NewInbound, target: InboundTarget): Promise<Answered | 'ambiguous' | null> {
  const select = { business: true, ownerId: true, clientPk: true, name: true } as const;
  const latest = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];
  if (target.business !== null) {
    return tx.message.findFirst({ where: { phone: inbound.from, business: target.business, direction: 'outbound', OR: ANSWERABLE }, orderBy: latest, select });
  }
  const since = new Date(inbound.receivedAt.getTime() - inbound.sharedSenderMatchMs);
  // Which (business, user) pairs texted the phone from the shared sender lately: two are enough to know it is ambiguous.
  const texters = await tx.$queryRaw<{ business: string; ownerId: string }[]>`
    SELECT DISTINCT m.business, m.owner_id AS "ownerId" FROM messages m
     WHERE m.phone = ${inbound.from} AND m.sender = ${inbound.sender} AND m.direction = 'outbound' AND m.created_at >= ${since}
       AND ${ANSWERABLE_SQL}
     LIMIT 2`;
  if (texters.length === 0) return null;
  if (texters.length > 1) return 'ambiguous';
  const [only] = texters;
  return tx.message.findFirst({ where: { phone: inbound.from, sender: inbound.sender, direction: 'outbound', business: only.business, ownerId: only.ownerId, OR: ANSWERABLE }, orderBy: latest, select });
}

/** The business a text to `to` belongs to: the one holding that number (or that held it last), else the shared sender. */
export async function inboundTargetOf(db: Prisma | Db.TransactionClient, to: string): Promise<InboundTarget> {
  const owner = await ownerOfNumber(db, to);
  return { business: owner?.business ?? null };
}

/**
 * Stores an inbound text once per carrier id, in one transaction: matched (see answeredBy) to the
 * business, owner and client of the message it answers, as a `received` message with its
 * `message.received` event (`eventData` adds what the event names besides the message, read in the
 * same transaction), else kept as unmatched. `alsoFirstTime` runs in the same transaction only when the
 * text is new (a keyword's opt-out), so a repeated callback changes nothing.
 */
export async function storeInbound(
  prisma: Prisma,
  inbound: NewInbound,
  target: InboundTarget,
  eventData: (tx: Db.TransactionClient, message: MessageWithClient) => Promise<Record<string, unknown>>,
  alsoFirstTime: (tx: Db.TransactionClient) => Promise<void>,
): Promise<InboundOutcome> {
  return withEvents(prisma, async (tx, record) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`inbound/${inbound.inboundKey}`}, 0))`;
    const seen = (await tx.message.count({ where: { inboundKey: inbound.inboundKey } })) > 0 || (await unmatchedInboundExists(tx, inbound.inboundKey));
    if (seen) return { stored: 'repeat' as const };
    const found = await answeredBy(tx, inbound, target);
    const answered = found === 'ambiguous' ? null : found;
    await alsoFirstTime(tx);
    if (!answered) {
      const { provider, inboundKey, to, from, text, receivedAt } = inbound;
      await insertUnmatchedInbound(tx, { provider, inboundKey, sender: to, phone: from, text, receivedAt });
      return { stored: 'unmatched' as const, ambiguous: found === 'ambiguous' };
    }
    const message = await tx.message.create({
      data: {
        id: randomUUID(),
        direction: 'inbound',
        business: answered.business,
        ownerId: answered.ownerId,
        clientPk: answered.clientPk,
        messageType: 'text',
        phone: inbound.from,
        name: answered.name,
        text: inbound.text,
        status: 'received',
        sendAt: inbound.receivedAt,
        workflowId: null,
        provider: inbound.provider,
        providerRef: inbound.providerRef,
        sender: inbound.to,
        receivedAt: inbound.receivedAt,
        inboundKey: inbound.inboundKey,
      },
      include: withClientId,
    });
    const event = messageEvent('message.received', message, 'carrier');
    await record({ ...event, data: { ...event.data, ...(await eventData(tx, message)) } });
    return { stored: 'matched' as const, message };
  });
}

/** How many of the table's messages are in each status. */
export async function countMessagesByStatus(prisma: Prisma): Promise<Map<MessageStatus, number>> {
  const groups = await prisma.message.groupBy({ by: ['status'], _count: { _all: true } });
  return new Map(groups.map((g) => [g.status, g._count._all]));
}

/**
 * sending → failed, with a bounded reason and the carrier's error code. A carrier's refusal because the
 * recipient unsubscribed (`optOut`) records the opt-out for the message's sender (`sender` for a
 * message accepted before it had one) in the same transaction.
 */
export async function markMessageFailed(
  prisma: Prisma,
  input: { messageId: string; error: string; errorCode?: string; optOut?: boolean; sender?: string },
  now = new Date(),
): Promise<void> {
  await withEvents(prisma, async (tx, record) => {
    const [row] = await tx.message.updateManyAndReturn({
      where: { id: input.messageId, status: 'sending' },
      data: { status: 'failed', error: input.error.slice(0, 1000), ...(input.errorCode !== undefined && { errorCode: input.errorCode.slice(0, 100) }) },
      include: withClientId,
    });
    if (!row) return;
    const sender = row.sender ?? input.sender;
    if (input.optOut && sender) {
      await recordOptOut(tx, { sender, phone: row.phone, business: await optOutScopeOf(tx, row.business, sender), source: 'carrier', detail: input.errorCode ?? '', at: now });
    }
    await record(messageEvent('message.failed', row, 'api'));
  });
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
      ...(clientId && { client: { id: clientId } }),
      ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
    },
    include: withClientId,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
  });
}

/*
 * A batch's messages (POST /messages/batch), moved together by their batch's workflow: each statement
 * takes a chunk of rows and writes their events in bulk, so that a message costs the provider call and
 * the one statement recording its acceptance, and everything else is paid once a chunk.
 */

const DUE = Db.sql`GREATEST(m.send_at, COALESCE(m.deferred_until, m.send_at))`;

/** When the batch's next still-scheduled message is due (its send window may defer it); null when none is left. */
export async function nextDueInBatch(prisma: Prisma, batchId: string): Promise<Date | null> {
  const [row] = await prisma.$queryRaw<{ due: Date | null }[]>`SELECT min(${DUE}) AS due FROM messages m WHERE m.batch_id = ${batchId}::uuid AND m.status = 'scheduled'`;
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
       WHERE m.batch_id = ${batchId}::uuid AND m.status = 'scheduled' AND ${DUE} <= ${dueBy}
         AND EXISTS (SELECT 1 FROM opt_outs o WHERE ${FORBIDS_MESSAGE})
      RETURNING m.id::text`;
    const claimed = await tx.$queryRaw<{ id: string }[]>`
      UPDATE messages SET status = 'sending', dispatched_at = ${now}, batch_chunk = ${chunk}, attempts = 1, provider = ${provider}, updated_at = ${now}
       WHERE id IN (SELECT m.id FROM messages m WHERE m.batch_id = ${batchId}::uuid AND m.status = 'scheduled' AND ${DUE} <= ${dueBy}
                     ORDER BY ${DUE}, m.id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
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
  phone: string;
  name: string | null;
  text: string;
  sender: string | null;
  dispatchedAt: Date;
  /** Attempts before this one: above 0, an earlier attempt may have reached the provider. */
  attempts: number;
}

/**
 * The chunk's messages still sending and not yet accepted by the provider. The claim counted the first
 * attempt; a retry (`retry`) counts one more for each.
 */
export async function startChunkAttempt(prisma: Prisma, input: { batchId: string; chunk: number; provider: string; retry: boolean }): Promise<ChunkMessage[]> {
  type Row = Omit<ChunkMessage, 'clientId' | 'dispatchedAt'> & { client_id: string | null; dispatched_at: Date };
  const fields = Db.sql`m.id::text AS id, m.business, m.phone, m.name, m.text, m.sender, m.dispatched_at, m.attempts - 1 AS attempts,
                        (SELECT c.id FROM clients c WHERE c.pk = m.client_pk) AS client_id`;
  const ofChunk = Db.sql`m.batch_id = ${input.batchId}::uuid AND m.batch_chunk = ${input.chunk} AND m.status = 'sending' AND m.provider_accepted_at IS NULL`;
  const rows = input.retry
    ? await prisma.$queryRaw<Row[]>`UPDATE messages m SET attempts = m.attempts + 1, provider = ${input.provider} WHERE ${ofChunk} RETURNING ${fields}`
    : await prisma.$queryRaw<Row[]>`SELECT ${fields} FROM messages m WHERE ${ofChunk}`;
  return rows
    .map(({ client_id, dispatched_at, ...row }) => ({ ...row, clientId: client_id, dispatchedAt: dispatched_at }))
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
    }
    return rows.length;
  });
}
