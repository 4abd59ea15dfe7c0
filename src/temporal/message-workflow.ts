import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { REQUEST_ID_MEMO, type SendMessageInput } from '../workflows/definitions';
import { searchAttributesOf } from './search-attributes';

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

