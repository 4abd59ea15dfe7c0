import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Recipients one POST /messages/batch may carry. */
export const MAX_BATCH_RECIPIENTS = 1000;

/** How a batch is sent unless MESSAGE_BATCH_CHUNK_SIZE / MESSAGE_BATCH_CONCURRENCY say otherwise. */
export const DEFAULT_BATCH_CHUNK_SIZE = 100;
export const DEFAULT_BATCH_CONCURRENCY = 4;

/**
 * The batch workflow's input: ids and times only (recipients, phones and texts stay in PostgreSQL).
 * `nextChunk` and `sent` carry its progress across continue-as-new.
 */
export interface SendMessageBatchInput {
  business: string;
  batchId: string;
  /** When the batch is due, ISO 8601 (a recipient's send window may defer its own message later). */
  sendAt: string;
  /** Set by continue-as-new: the number the next claimed chunk gets, and what the earlier runs did. */
  nextChunk?: number;
  progress?: MessageBatchProgress;
}

/** What the batch's runs have done so far (counts only). */
export interface MessageBatchProgress {
  chunks: number;
  sent: number;
  failed: number;
  /** Canceled or opted out before their chunk claimed them. */
  skipped: number;
}

export type SendMessageBatchResult = MessageBatchProgress;

export interface MessageBatchState {
  phase: 'waiting' | 'sending' | 'done';
  sendAt: string;
  /** When the next due message of the batch is (a deferred one), or null while sending / when done. */
  nextWakeAt: string | null;
  /** Chunks being sent now. */
  inFlight: number;
  progress: MessageBatchProgress;
}

/** Sent after messages of the batch changed (a cancel of the batch): the workflow re-reads what is left. */
export const messageBatchChangedSignal = defineSignal('messageBatchChanged');
export const messageBatchStateQuery = defineQuery<MessageBatchState>('state');

export const SEND_MESSAGE_BATCH_WORKFLOW = 'sendMessageBatch';
export type SendMessageBatchWorkflow = (input: SendMessageBatchInput) => Promise<SendMessageBatchResult>;

export function messageBatchWorkflowId(business: string, batchId: string): string {
  return `message-batch/${business}/${batchId}`;
}
