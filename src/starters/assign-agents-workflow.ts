import type { Client as TemporalClient } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import {
  ASSIGN_AGENTS_WORKFLOW,
  assignAgentsWorkflowId,
  REQUEST_ID_MEMO,
  type AssignAgentsInput,
  type AssignAgentsWorkflow,
  taskQueuesOf,
} from '../domain';
import { startWithinBudget } from './availability';
import { searchAttributesOf } from './search-attributes';

/* The one place an assign-agents request's workflow (`assignAgents`) is started. */

export { assignAgentsWorkflowId };

/**
 * Starts the request's validating workflow on the assign queue within the start budget (and `deadline`);
 * a retried request (same workflow id) gets the run it already started.
 */
export function startAssignAgentsWorkflow(
  temporal: TemporalClient,
  baseTaskQueue: string,
  workflowId: string,
  input: AssignAgentsInput,
  options: { requestId?: string; deadline: number },
) {
  return startWithinBudget(
    temporal,
    () =>
      temporal.workflow.start<AssignAgentsWorkflow>(ASSIGN_AGENTS_WORKFLOW, {
        workflowId,
        taskQueue: taskQueuesOf(baseTaskQueue).assign,
        // A retried request (same key) waits for the run it already started.
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        args: [input],
        typedSearchAttributes: searchAttributesOf({ business: input.business, clientId: input.clientId }),
        ...(options.requestId && { memo: { [REQUEST_ID_MEMO]: options.requestId } }),
        staticSummary: `Assign ${input.agents.map((a) => a.agentId).join(', ')} to client ${input.clientId}`.slice(0, 200),
      }),
    options.deadline,
  );
}
