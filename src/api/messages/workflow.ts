import type { Client as TemporalClient } from '@temporalio/client';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/common';
import { startWithinBudget } from '../../temporal/availability';
import { searchAttributesOf } from '../../temporal/search-attributes';
import { sendMessage } from '../../workflows';
import { messageChangedSignal, REQUEST_ID_MEMO, type SendMessageInput } from '../../workflows/definitions';

export interface ScheduledMessage {
  id: string;
  business: string;
  sendAt: Date;
  workflowId: string;
  clientId: string | null;
  /** The HTTP request that accepted it, carried in the run's memo. */
  requestId?: string;
}

/** How a message's workflow is started, by the API's client or by the Nexus operation (which adds its callback). */
export function messageWorkflowOptions(taskQueue: string, message: ScheduledMessage) {
  return {
    workflowId: message.workflowId,
    taskQueue,
    args: [{ business: message.business, messageId: message.id, sendAt: message.sendAt.toISOString() }] as [SendMessageInput],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: searchAttributesOf({ business: message.business, clientId: message.clientId }),
    ...(message.requestId && { memo: { [REQUEST_ID_MEMO]: message.requestId } }),
    staticSummary: `Text message ${message.id}${message.clientId ? ` to client ${message.clientId}` : ''}, send at ${message.sendAt.toISOString()}`,
  };
}

/**
 * Starts the message's workflow, or finds it running. A closed one is never started again (the id is
 * not reusable), so starting twice — a replayed Idempotency-Key healing a crash — is harmless.
 */
export async function startMessageWorkflow(temporal: TemporalClient, taskQueue: string, message: ScheduledMessage): Promise<void> {
  try {
    await startWithinBudget(temporal, () => temporal.workflow.start(sendMessage, messageWorkflowOptions(taskQueue, message)));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Tells the workflow to re-read its row. A closed one has nothing left to send; a later one reads the row before it sends. */
export async function notifyMessageWorkflow(temporal: TemporalClient, workflowId: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(messageChangedSignal);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
