import type { Client as TemporalClient } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { startWorkflow, type WorkflowHandle } from '@temporalio/nexus';
import type { StartOperationContext } from 'nexus-rpc';
import {
  messageBatchChangedSignal,
  messageBatchWorkflowId,
  REQUEST_ID_MEMO,
  SEND_MESSAGE_BATCH_WORKFLOW,
  type SendMessageBatchInput,
  type SendMessageBatchResult,
  type SendMessageBatchWorkflow,
  taskQueuesOf,
} from '../domain';
import { startWithinBudget } from './availability';
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

/** Starts the batch's workflow, or finds it running; a closed one is never started again. */
export async function startMessageBatchWorkflow(temporal: TemporalClient, taskQueue: string, batch: ScheduledBatch): Promise<void> {
  try {
    await startWithinBudget(temporal, () => temporal.workflow.start<SendMessageBatchWorkflow>(SEND_MESSAGE_BATCH_WORKFLOW, messageBatchWorkflowOptions(taskQueue, batch)));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** The Nexus operation's start: the same run, with the operation's completion callback attached. */
export function startMessageBatchWorkflowForOperation(ctx: StartOperationContext, taskQueue: string, batch: ScheduledBatch): Promise<WorkflowHandle<SendMessageBatchResult>> {
  return startWorkflow<SendMessageBatchWorkflow>(ctx, SEND_MESSAGE_BATCH_WORKFLOW, messageBatchWorkflowOptions(taskQueue, batch));
}

/**
 * Tells the run to re-read what is left (after a cancel of the batch). Signal-with-start, so that a run
 * still waiting on its start delay wakes now; a closed run has nothing left to send.
 */
export async function wakeMessageBatchWorkflow(temporal: TemporalClient, taskQueue: string, batch: ScheduledBatch): Promise<void> {
  const { startDelay: _delay, ...options } = messageBatchWorkflowOptions(taskQueue, batch);
  try {
    await temporal.workflow.signalWithStart<SendMessageBatchWorkflow, []>(SEND_MESSAGE_BATCH_WORKFLOW, { ...options, signal: messageBatchChangedSignal, signalArgs: [] });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** The reconciler's start, for a batch with unsent messages whose run was terminated, canceled or failed. */
export async function restartMessageBatchWorkflow(temporal: TemporalClient, taskQueue: string, batch: ScheduledBatch): Promise<boolean> {
  try {
    await temporal.workflow.start<SendMessageBatchWorkflow>(SEND_MESSAGE_BATCH_WORKFLOW, {
      ...messageBatchWorkflowOptions(taskQueue, batch),
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}
