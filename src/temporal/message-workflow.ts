import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { REQUEST_ID_MEMO, type SendMessageInput } from '../workflows/definitions';
import { searchAttributesOf } from './search-attributes';
import { taskQueuesOf } from './task-queues';

export interface ScheduledMessage {
  id: string;
  business: string;
  sendAt: Date;
  workflowId: string;
  clientId: string | null;
  /** The HTTP request that accepted it, carried in the run's memo. */
  requestId?: string;
}

/**
 * How a message's workflow is started, by the API's client, the reconciler or the Nexus operation (which
 * adds its callback). A message due later is started with Temporal's `startDelay` until `send_at`: until
 * then its run is one event in the server and no workflow task at all (no timer, nothing in a worker's
 * cache), and its first task comes when it is due. A cancel wakes it early (see `wakeMessageWorkflow`);
 * an operator's Request Cancellation does so by itself.
 */
export function messageWorkflowOptions(baseTaskQueue: string, message: ScheduledMessage, now = Date.now()) {
  const delayMs = message.sendAt.getTime() - now;
  return {
    workflowId: message.workflowId,
    taskQueue: taskQueuesOf(baseTaskQueue).messages,
    args: [{ business: message.business, messageId: message.id, sendAt: message.sendAt.toISOString() }] as [SendMessageInput],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: searchAttributesOf({ business: message.business, clientId: message.clientId, messageStatus: 'scheduled' }),
    ...(message.requestId && { memo: { [REQUEST_ID_MEMO]: message.requestId } }),
    staticSummary: `Text message ${message.id}${message.clientId ? ` to client ${message.clientId}` : ''}, send at ${message.sendAt.toISOString()}`,
    ...(delayMs > 0 && { startDelay: delayMs }),
  };
}
