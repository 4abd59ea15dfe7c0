import type { Client as TemporalClient } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/common';
import { startWorkflow, type WorkflowHandle } from '@temporalio/nexus';
import type { StartOperationContext } from 'nexus-rpc';
import {
  messageChangedSignal,
  messageWorkflowId,
  REQUEST_ID_MEMO,
  SEND_MESSAGE_WORKFLOW,
  type SendMessageInput,
  type SendMessageResult,
  type SendMessageWorkflow,
  taskQueuesOf,
} from '../domain';
import { messageDueAt } from '../domain/message-due';
import { delayedWorkflow } from './delayed-workflow';
import { searchAttributesOf } from './search-attributes';

/* The one place a message's workflow (`sendMessage`) is started, woken or restarted. */

export interface ScheduledMessage {
  id: string;
  business: string;
  sendAt: Date;
  /** Later than `sendAt` when the message's send window (quiet hours) defers it; its run waits until then. */
  deferredUntil?: Date | null;
  clientId: string | null;
  /** The HTTP request that accepted it, carried in the run's memo. */
  requestId?: string;
}

/**
 * How a message's workflow is started, by the API's client, the reconciler or the Nexus operation (which
 * adds its callback). A message due later is started with Temporal's `startDelay` until `send_at`, or
 * until `deferred_until` when its send window defers it: until then its run is one event in the server
 * and no workflow task at all (no timer, nothing in a worker's cache), and its first task comes when it
 * is due. A cancel wakes it early (see `cancelMessageWorkflow`), as an operator's Request Cancellation does.
 */
export function messageWorkflowOptions(baseTaskQueue: string, message: ScheduledMessage, now = Date.now()) {
  const due = messageDueAt({ sendAt: message.sendAt, deferredUntil: message.deferredUntil ?? null });
  const deferred = due > message.sendAt ? due : null;
  const delayMs = due.getTime() - now;
  const sendAt = message.sendAt.toISOString();
  return {
    workflowId: messageWorkflowId(message.business, message.id),
    taskQueue: taskQueuesOf(baseTaskQueue).messages,
    args: [{ business: message.business, messageId: message.id, sendAt, ...(deferred && { deferredUntil: deferred.toISOString() }) }] as [SendMessageInput],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: searchAttributesOf({ business: message.business, clientId: message.clientId, messageStatus: 'scheduled' }),
    ...(message.requestId && { memo: { [REQUEST_ID_MEMO]: message.requestId } }),
    staticSummary:
      `Text message ${message.id}${message.clientId ? ` to client ${message.clientId}` : ''}, send at ${sendAt}` +
      (deferred ? `, deferred until ${deferred.toISOString()} by its send window` : ''),
    ...(delayMs > 0 && { startDelay: delayMs }),
  };
}

const runs = delayedWorkflow<SendMessageWorkflow, ScheduledMessage>(SEND_MESSAGE_WORKFLOW, messageChangedSignal, messageWorkflowOptions);

export const startMessageWorkflow = runs.start;
export const restartMessageWorkflow = runs.restart;

/** The Nexus operation's start: the same run, with the operation's completion callback attached. */
export function startMessageWorkflowForOperation(ctx: StartOperationContext, taskQueue: string, message: ScheduledMessage): Promise<WorkflowHandle<SendMessageResult>> {
  return startWorkflow<SendMessageWorkflow>(ctx, SEND_MESSAGE_WORKFLOW, messageWorkflowOptions(taskQueue, message));
}

/**
 * Ends the run of a message its user canceled (the row is already `canceled`, by `api`): a cancellation
 * request, so that the run ends as Temporal's Canceled, as an operator's Request Cancellation does. It
 * wakes a run still waiting on its start delay too; a run that never started or already closed has
 * nothing to end.
 */
export async function cancelMessageWorkflow(temporal: TemporalClient, message: { business: string; id: string }): Promise<void> {
  try {
    await temporal.workflow.getHandle(messageWorkflowId(message.business, message.id)).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}


/**
 * Tells a sent message's run that a carrier's receipt moved its row, so that its MessageStatus and
 * details follow (the run re-reads the row). A run already closed — it waited its bound, or an operator
 * terminated it — has nothing to show: the row stays the truth.
 */
export async function tellMessageWorkflowOfReceipt(temporal: TemporalClient, workflowId: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(messageChangedSignal);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
