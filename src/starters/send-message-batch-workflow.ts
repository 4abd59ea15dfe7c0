import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import {
  messageBatchChangedSignal,
  messageBatchWorkflowId,
  REQUEST_ID_MEMO,
  SEND_MESSAGE_BATCH_WORKFLOW,
  type SendMessageBatchInput,
  type SendMessageBatchWorkflow,
  taskQueuesOf,
} from '../domain';
import { delayedWorkflow } from './delayed-workflow';
import { searchAttributesOf } from './search-attributes';

/* The one place a batch's workflow (`sendMessageBatch`) is started, woken or restarted. */

export interface ScheduledBatch {
  id: string;
  business: string;
  /** When the batch is due: its run starts then (Temporal's start delay), one event in the server until it does. */
  sendAt: Date;
  /** Messages it holds, for the run's summary. */
  accepted: number;
  /** The HTTP request that accepted it, carried in the run's memo. */
  requestId?: string;
}

export function messageBatchWorkflowOptions(baseTaskQueue: string, batch: ScheduledBatch, now = Date.now()) {
  const delayMs = batch.sendAt.getTime() - now;
  const sendAt = batch.sendAt.toISOString();
  return {
    workflowId: messageBatchWorkflowId(batch.business, batch.id),
    taskQueue: taskQueuesOf(baseTaskQueue).messages,
    args: [{ business: batch.business, batchId: batch.id, sendAt }] as [SendMessageBatchInput],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: searchAttributesOf({ business: batch.business, messageStatus: 'scheduled' }),
    ...(batch.requestId && { memo: { [REQUEST_ID_MEMO]: batch.requestId } }),
    staticSummary: `Text message batch ${batch.id}: ${batch.accepted} messages, send at ${sendAt}`,
    ...(delayMs > 0 && { startDelay: delayMs }),
  };
}

const runs = delayedWorkflow<SendMessageBatchWorkflow, ScheduledBatch>(SEND_MESSAGE_BATCH_WORKFLOW, messageBatchChangedSignal, messageBatchWorkflowOptions);

export const startMessageBatchWorkflow = runs.start;
export const wakeMessageBatchWorkflow = runs.wake;
export const restartMessageBatchWorkflow = runs.restart;
