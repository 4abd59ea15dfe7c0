/*
 * Every change of a message row: scheduled on accept, then scheduled → sending → sent | failed by its
 * workflow (while sending, `provider_accepted_at` records the provider's 2xx), scheduled → suppressed
 * when its recipient opted out before it was due, scheduled → canceled by its owner, scheduled → failed
 * when it could not be scheduled; a carrier's receipts take sending | sent on to delivered |
 * undelivered | failed, and WhatsApp's read receipt delivered on to read; an inbound text is inserted `received`. A batch's messages move a chunk at a
 * time, in src/db/message-batches.ts.
 * Each transition is a compare-and-set on the status it leaves (or holds the row's lock), so racing
 * callers cannot both win, and records its event in its own transaction.
 */

export type { MessageWithClient } from './transition';
export * from './accept';
export * from './cancel';
export * from './sending';
export * from './receipts';
export * from './inbound';
export * from './queries';
export * from './erase';
export * from './whatsapp';
