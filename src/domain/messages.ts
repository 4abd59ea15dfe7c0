import { defineQuery, defineSignal } from '@temporalio/workflow';

export const MESSAGE_STATUSES = ['scheduled', 'sending', 'sent', 'delivered', 'read', 'undelivered', 'failed', 'canceled', 'suppressed', 'received'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
/** Not sent yet: the reconciler checks their runs, and a batch with none left is finished. */
export const UNSENT_STATUSES = ['scheduled', 'sending'] as const satisfies readonly MessageStatus[];

/** Only ids and the due time: the phone number and the text stay in PostgreSQL, out of workflow history. */
export interface SendMessageInput {
  business: string;
  messageId: string;
  /** When the message is due, ISO 8601: the requested time, shown as asked. */
  sendAt: string;
  /** When it goes out instead, ISO 8601, if `sendAt` falls outside its `send_window` (quiet hours). */
  deferredUntil?: string;
}

/** How an outbound message's run ended: a carrier's receipt may already have moved `sent` on. */
export type MessageOutcome = 'sent' | 'delivered' | 'read' | 'undelivered' | 'failed' | 'canceled' | 'suppressed';

export interface SendMessageResult {
  outcome: MessageOutcome;
}

/** What moving `scheduled → sending` found: `claimed` means this run now owns the hand-over. */
export type MessageClaim = { status: 'claimed' } | { status: MessageOutcome };

export interface SendMessageState {
  phase: 'waiting' | 'sending' | 'done';
  sendAt: string;
  /** Present when the message's send window defers it past `sendAt`. */
  deferredUntil?: string;
  /** When the current timer fires: sendAt (or deferredUntil), or the end of this run's chunk. */
  nextWakeAt: string | null;
}

/** Sent after the message row changed (canceled): the workflow re-reads it and ends if it is no longer scheduled. */
export const messageChangedSignal = defineSignal('messageChanged');
export const sendMessageStateQuery = defineQuery<SendMessageState>('state');

/**
 * How long a sent message's run waits for its carrier's final receipt (delivered, undelivered, failed)
 * before it closes with the status its row has then: carriers report within minutes, and a message whose
 * carrier never reports must not keep a run open for ever.
 */
export const MESSAGE_RECEIPT_WAIT_MS = 24 * 60 * 60 * 1000;

/** The carriers report on what they were given (receipts); the `log` and `webhook` providers never do. */
export const sendsReceipts = (provider: string): boolean => provider !== 'log' && provider !== 'webhook';

/** What a due message's hand-over found: whether a carrier will report on it. */
export interface SendDueResult {
  outcome: MessageOutcome;
  /** Sent through a carrier that sends receipts (not the log or webhook provider): worth waiting for one. */
  awaitsReceipt: boolean;
}

/** A message's status as its row has it, and why it ended so in words: ids, codes and our words only. */
export interface MessageStatusDetails {
  status: MessageStatus;
  reason: string | null;
  /** The carrier's (or our) error code of a failed or undelivered message; absent from results recorded before it existed. */
  code?: string | null;
}

/** The type of the (non-retryable) failure a message's run ends with, by outcome. */
export const MessageRunFailureType = { failed: 'MessageFailed', undelivered: 'MessageUndelivered' } as const;

/** The failure's one detail: ids, codes and our words only (the message is in clear in the run's history). */
export interface MessageRunFailureDetails {
  messageId: string;
  outcome: 'failed' | 'undelivered';
  reason: string | null;
  code: string | null;
}

/** The failure's message: `Message {id} failed: {reason}`, its code added when the reason does not say it. */
export function messageRunFailureMessage({ messageId, outcome, reason, code }: MessageRunFailureDetails): string {
  return `Message ${messageId} ${outcome}${reason ? `: ${reason}` : ''}${code && !reason?.includes(code) ? ` (error ${code})` : ''}`;
}

/** The message workflow's name and signature, for starting it from activities without importing workflow code. */
export const SEND_MESSAGE_WORKFLOW = 'sendMessage';
export type SendMessageWorkflow = (input: SendMessageInput) => Promise<SendMessageResult>;

export function messageWorkflowId(business: string, messageId: string): string {
  return `message/${business}/${messageId}`;
}
