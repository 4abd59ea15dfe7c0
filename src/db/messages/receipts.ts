import { Prisma as Db } from '../../generated/prisma/client';
import { receiptStep } from '../../domain/message-receipts';
import { answeredOnHandOver } from '../conversations';
import { messageEvent, withEvents } from '../events';
import { optOutChannelOf, optOutScopeOf, recordOptOut } from '../opt-outs';
import type { Prisma } from '../prisma';
import { withClientId, type MessageWithClient } from './transition';

/** A carrier's receipt as the row records it. */
export interface ReceiptUpdate {
  /** Our id, from the callback's URL or the carrier's client reference; otherwise the row is found by (provider, providerRef). */
  messageId?: string;
  provider: string;
  providerRef: string;
  status: 'sent' | 'delivered' | 'read' | 'undelivered' | 'failed';
  errorCode?: string;
  /** What the code means, in the carrier's table of our words. */
  meaning?: string;
  /** The code means the recipient unsubscribed: the carrier's opt-out is recorded with the failure. */
  optOut?: boolean;
  price?: { amount: string; unit: string };
  /** When the carrier says it happened. */
  at?: Date;
  /** Our number the receipt is for, when the carrier names it: only a message sent from it moves. */
  sender?: string;
  /** An RCS message's receipt: whether RCS or the carrier's SMS fallback carried it (absent: the carrier names only RCS). */
  deliveredChannel?: 'rcs' | 'sms';
  /** Of the carrier's fallback copy under its own reference: moves an RCS message without taking its reference. */
  fallback?: boolean;
}

export type ReceiptOutcome =
  /** The receipt moved the status on (and its event was recorded); `sentAt`: when it had left, for the sent → delivered time. */
  | { applied: true; message: MessageWithClient; sentAt: Date | null }
  | { applied: false; message: MessageWithClient | null };

const RECEIPT_EVENTS = { delivered: 'message.delivered', read: 'message.read', undelivered: 'message.undelivered', failed: 'message.failed' } as const;

/**
 * Applies a carrier's receipt to its outbound message, under the row's lock so that it and the run's
 * own `markMessageSent` / `markMessageFailed` (compare-and-sets on `sending`) cannot both win. Only
 * forward: `sending`/`sent` → `delivered`|`undelivered`|`failed`, which are final; a repeat, an older
 * status or an unknown message changes nothing. A `sent` receipt only records the carrier's reference
 * on a row still `sending`. A final receipt that overtakes the run (row still `sending`) ends the row
 * there, `sent_at` now: the run then finds it no longer sending and leaves it. A row that already has
 * another carrier reference is not this receipt's (a signed body replayed to another message's URL).
 * WhatsApp's `read` moves `sending`/`sent`/`delivered` on to `read` (delivered too, when its own receipt
 * was lost); nothing moves a `read` message.
 */
export async function applyReceipt(prisma: Prisma, receipt: ReceiptUpdate, now = new Date()): Promise<ReceiptOutcome> {
  return withEvents(prisma, async (tx, record) => {
    const locate = receipt.messageId
      ? Db.sql`id = ${receipt.messageId}::uuid`
      : Db.sql`provider = ${receipt.provider} AND provider_ref = ${receipt.providerRef}`;
    const [found] = await tx.$queryRaw<{ id: string }[]>`SELECT id::text FROM messages WHERE ${locate} AND direction = 'outbound' LIMIT 1 FOR UPDATE`;
    const message = found ? await tx.message.findUnique({ where: { id: found.id }, include: withClientId }) : null;
    if (!message) return { applied: false, message: null };
    const step = receiptStep(message, { ...receipt, fallback: receipt.fallback === true && message.channel === 'rcs' });
    if (step === 'ignore') return { applied: false, message };
    if (step === 'reference') {
      const [row] = await tx.message.updateManyAndReturn({ where: { id: message.id }, data: { providerRef: receipt.providerRef }, include: withClientId });
      return { applied: false, message: row };
    }
    const failed = receipt.status === 'undelivered' || receipt.status === 'failed';
    const [row] = await tx.message.updateManyAndReturn({
      where: { id: message.id },
      data: {
        status: receipt.status,
        receiptAt: now,
        sentAt: message.sentAt ?? now,
        provider: receipt.provider,
        ...(!(receipt.fallback && message.providerRef !== null) && { providerRef: receipt.providerRef }),
        ...(receipt.status === 'delivered' && { deliveredAt: receipt.at ?? now }),
        ...(receipt.status === 'read' && { readAt: receipt.at ?? now, deliveredAt: message.deliveredAt ?? receipt.at ?? now }),
        ...(message.channel === 'rcs' && { deliveredChannel: deliveredChannelOf(receipt) }),
        ...(receipt.errorCode !== undefined && { errorCode: receipt.errorCode.slice(0, 100) }),
        ...(receipt.price && { price: receipt.price.amount.slice(0, 40), priceUnit: receipt.price.unit.slice(0, 10) }),
        ...(failed && { error: receiptError(receipt) }),
      },
      include: withClientId,
    });
    if (failed && receipt.optOut && row.sender && row.phone) {
      const business = await optOutScopeOf(tx, row.business, row.sender);
      await recordOptOut(tx, { sender: row.sender, phone: row.phone, business, channel: optOutChannelOf(row.channel), source: 'carrier', detail: receipt.errorCode ?? '', at: now });
    }
    // A receipt that overtook the run: the carrier had the message.
    if (!failed && message.status === 'sending') await answeredOnHandOver(tx, row.id, message.providerAcceptedAt ?? now);
    // A `sent` receipt never moves the status (receiptStep).
    await record(messageEvent(RECEIPT_EVENTS[receipt.status as keyof typeof RECEIPT_EVENTS], row, 'carrier'));
    return { applied: true, message: row, sentAt: message.sentAt ?? message.providerAcceptedAt };
  });
}

/**
 * Which of an RCS message's pair carried it: the receipt's word when it names one; else a read receipt
 * is RCS's (SMS has none) and any other is the number's SMS, the carrier's fallback.
 */
export function deliveredChannelOf(receipt: Pick<ReceiptUpdate, 'status' | 'deliveredChannel'>): 'rcs' | 'sms' {
  return receipt.deliveredChannel ?? (receipt.status === 'read' ? 'rcs' : 'sms');
}

/** e.g. "The carrier reported the message undelivered: The recipient's handset is unreachable (error 30003)". */
function receiptError(receipt: ReceiptUpdate): string {
  const meaning = receipt.meaning ? `: ${receipt.meaning}` : '';
  return `The carrier reported the message ${receipt.status}${meaning}${receipt.errorCode ? ` (error ${receipt.errorCode.slice(0, 100)})` : ''}`;
}
