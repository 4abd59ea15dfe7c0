import type { MessageStatus } from './messages';

/*
 * What a carrier's receipt does to its outbound message (src/db/messages/receipts.ts applyReceipt applies
 * it under the row's lock). Only forward: `sending`/`sent` → `delivered`|`undelivered`|`failed`, final;
 * WhatsApp's `read` also moves `delivered` on. A `sent` receipt only records the carrier's reference on a
 * row still `sending`.
 */

export type ReceiptStatus = 'sent' | 'delivered' | 'read' | 'undelivered' | 'failed';

/** What the row holds, as far as the rule looks at it. */
export interface ReceiptTarget {
  status: MessageStatus;
  provider: string | null;
  providerRef: string | null;
  sender: string | null;
}

/** The receipt: its carrier, its reference, its status, and our number when the carrier names it. */
export interface ReceiptFacts {
  provider: string;
  providerRef: string;
  status: ReceiptStatus;
  sender?: string;
  /** Of an RCS message's fallback copy, under the carrier's own reference for it (Vonage's failover). */
  fallback?: boolean;
}

/** `ignore`: nothing changes; `reference`: the carrier's reference is recorded, the status stays; `move`: the status moves to the receipt's. */
export type ReceiptStep = 'ignore' | 'reference' | 'move';

export function receiptStep(message: ReceiptTarget, receipt: ReceiptFacts): ReceiptStep {
  // A row that already has another carrier's reference is not this receipt's (a signed body replayed to another message's URL).
  const ours =
    (message.provider === null || message.provider === receipt.provider) && (message.providerRef === null || message.providerRef === receipt.providerRef || receipt.fallback === true);
  // A message sent from a number (not a messaging service) moves only by a receipt for that number.
  const fromThatNumber = !receipt.sender || !message.sender?.startsWith('+') || message.sender === receipt.sender;
  const moves = message.status === 'sending' || message.status === 'sent' || (receipt.status === 'read' && message.status === 'delivered');
  if (!ours || !fromThatNumber || !moves) return 'ignore';
  if (receipt.status === 'sent') return message.status === 'sending' && message.providerRef === null ? 'reference' : 'ignore';
  return 'move';
}
