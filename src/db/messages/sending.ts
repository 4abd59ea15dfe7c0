import type { MessageClaim } from '../../domain';
import { answeredOnHandOver } from '../conversations';
import { messageEvent, withEvents } from '../events';
import { FORBIDS_MESSAGE, optOutChannelOf, optOutScopeOf, recordOptOut } from '../opt-outs';
import type { Prisma } from '../prisma';
import { messageStatus } from './queries';
import { transition, withClientId, type MessageWithClient } from './transition';

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
  const now = new Date();
  const accepted = await prisma.message.updateMany({
    where: { id: input.messageId, status: 'sending' },
    data: { providerAcceptedAt: now, providerRef: input.providerRef },
  });
  if (accepted.count > 0) await answeredOnHandOver(prisma, input.messageId, now);
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
  if (!sent) return null;
  // A run from before the acceptance was recorded reaches here first.
  await answeredOnHandOver(prisma, input.messageId, sent.sentAt!);
  return { sendAt: sent.sendAt, sentAt: sent.sentAt! };
}

/**
 * sending → failed, with a bounded reason and the carrier's error code. A carrier's refusal because the
 * recipient unsubscribed (`optOut`) records the opt-out for the message's sender (`sender` for a
 * message accepted before it had one) in the same transaction. Returns the row it failed, or null when
 * it was no longer sending (a repeat).
 */
export async function markMessageFailed(
  prisma: Prisma,
  input: { messageId: string; error: string; errorCode?: string; optOut?: boolean; sender?: string },
  now = new Date(),
): Promise<MessageWithClient | null> {
  return withEvents(prisma, async (tx, record) => {
    const [row] = await tx.message.updateManyAndReturn({
      where: { id: input.messageId, status: 'sending' },
      data: { status: 'failed', error: input.error.slice(0, 1000), ...(input.errorCode !== undefined && { errorCode: input.errorCode.slice(0, 100) }) },
      include: withClientId,
    });
    if (!row) return null;
    const sender = row.sender ?? input.sender;
    if (input.optOut && sender && row.phone) {
      await recordOptOut(tx, { sender, phone: row.phone, business: await optOutScopeOf(tx, row.business, sender), channel: optOutChannelOf(row.channel), source: 'carrier', detail: input.errorCode ?? '', at: now });
    }
    await record(messageEvent('message.failed', row, 'api'));
    return row;
  });
}
