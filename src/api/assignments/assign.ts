import { randomUUID } from 'node:crypto';
import type { Client as TemporalClient } from '@temporalio/client';
import { searchAttributesOf } from '../../temporal/search-attributes';
import { withTimeout } from '../../timeout';
import { assignAgents as assignAgentsWorkflow } from '../../workflows';
import { assignAgentsWorkflowId, REQUEST_ID_MEMO, type AssignAgentsResult } from '../../workflows/definitions';
import { HttpProblem } from '../http/problem';
import type { Scope } from '../http/scope';
import type { AssignRequest } from './request';

export interface AssignDeps {
  temporal: TemporalClient;
  taskQueue: string;
  /** How long a request waits for its validating workflow before answering 504. */
  assignTimeoutMs: number;
}

/**
 * Runs one request's validating workflow and waits for its answer. A start that fails (Temporal
 * unreachable) is a 503 and nothing was assigned; a started workflow that has not finished by the
 * deadline is a 504, and it completes on its own.
 */
export async function assignAgents(
  deps: AssignDeps,
  scope: Scope,
  clientId: string,
  request: AssignRequest,
  requestId?: string,
): Promise<AssignAgentsResult> {
  const workflowId = assignAgentsWorkflowId({ business: scope.business, clientId, requestId: randomUUID() });
  const deadline = Date.now() + deps.assignTimeoutMs;
  const handle = await deps.temporal.connection.withDeadline(deadline, () =>
    deps.temporal.workflow.start(assignAgentsWorkflow, {
      workflowId,
      taskQueue: deps.taskQueue,
      args: [{ ...scope, clientId, agents: request.agents, notes: request.notes }],
      typedSearchAttributes: searchAttributesOf({ business: scope.business, clientId }),
      ...(requestId && { memo: { [REQUEST_ID_MEMO]: requestId } }),
      staticSummary: `Assign ${request.agents.map((a) => a.agentId).join(', ')} to client ${clientId}`.slice(0, 200),
    }),
  );
  return withTimeout(handle.result(), deadline - Date.now(), () =>
    new HttpProblem(504, `Assignment workflow ${workflowId} did not finish in time; it completes on its own`, '/problems/timeout'),
  );
}
