import { randomUUID } from 'node:crypto';
import type { Client as TemporalClient } from '@temporalio/client';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { insertAssignRequest } from '../../db/assign-requests';
import type { Prisma } from '../../db/prisma';
import type { Admissions } from '../../starters/admission';
import { startAssignAgentsWorkflow } from '../../starters/assign-agents-workflow';
import { refuseWhileKnownDown } from '../../starters/availability';
import { withTimeout } from '../../timeout';
import { assignAgentsWorkflowId, RequestFailureType, type AssignAgentsResult } from '../../domain';
import { Invalid, NotFound, Unavailable, type UseCaseError } from '../errors';
import type { Scope } from '../../db/scope';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { parseAssignRequest, type AssignRequest } from './request';

export const DEFAULT_ASSIGN_TIMEOUT_MS = 20_000;

export interface AssignDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  /** The base task queue (TEMPORAL_TASK_QUEUE); the request's workflow runs on its assign queue. */
  taskQueue: string;
  /** How long a request waits for its validating workflow before answering 504. */
  assignTimeoutMs: number;
  /** Backpressure: a request beyond the places in flight waits briefly, then is a 503 before anything is stored. */
  admission?: Pick<Admissions, 'assign'>;
}

/**
 * The assign-agents request as the route and the Nexus operation receive it: the body's checks first,
 * then the client id, then ownership in the workflow. `requestId` goes into the run's memo; a repeated
 * `workflowKey` joins the run that key already started.
 */
export async function assignAgentsRequest(
  deps: AssignDeps,
  scope: Scope,
  clientId: string,
  body: unknown,
  requestId?: string,
  workflowKey?: string,
): Promise<AssignAgentsAnswer> {
  const request = parseAssignRequest(body);
  // Such a client cannot exist, and an overlong id would break the workflow id's length limit.
  if (!RESOURCE_ID_PATTERN.test(clientId)) throw new NotFound('Client not found');
  return assignAgents(deps, scope, clientId, request, requestId, workflowKey);
}

/** The HTTP answer: the workflow's result with the request's notes, which never entered Temporal. */
export type AssignAgentsAnswer = { client: string; ds_notes: string | null; assignments: AssignAgentsResult['assignments'] };

/**
 * Runs one request's validating workflow and waits for its answer. The user id and the notes go to
 * PostgreSQL first, under the workflow's id, for the workflow's recording transaction to read; its
 * input carries ids and dates only. A start that fails (Temporal unreachable) is a 503 and nothing
 * was assigned; a started workflow that has not finished by the deadline is a 504, and it completes
 * on its own.
 */
export async function assignAgents(
  deps: AssignDeps,
  scope: Scope,
  clientId: string,
  request: AssignRequest,
  requestId?: string,
  workflowKey: string = randomUUID(),
): Promise<AssignAgentsAnswer> {
  refuseWhileKnownDown(deps.temporal);
  // A wait for a place counts against the same deadline.
  const deadline = Date.now() + deps.assignTimeoutMs;
  const run = () => runAssignWorkflow(deps, scope, clientId, request, deadline, requestId, workflowKey);
  return deps.admission ? deps.admission.assign.run(scope.ownerId, run) : run();
}

async function runAssignWorkflow(
  deps: AssignDeps,
  scope: Scope,
  clientId: string,
  request: AssignRequest,
  deadline: number,
  requestId: string | undefined,
  workflowKey: string,
): Promise<AssignAgentsAnswer> {
  const workflowId = assignAgentsWorkflowId({ business: scope.business, clientId, requestId: workflowKey });
  await insertAssignRequest(deps.prisma, workflowId, scope, request.notes);
  const handle = await startAssignAgentsWorkflow(deps.temporal, deps.taskQueue, workflowId, { business: scope.business, clientId, agents: request.agents }, { requestId, deadline });
  const result = await withTimeout(
    handle.result().catch((error: unknown) => {
      throw requestFailure(error) ?? error;
    }),
    deadline - Date.now(),
    () =>
      new Unavailable(
        `Assignment workflow ${workflowId} did not finish in time; it completes on its own: GET /ext/v2/${scope.business}/clients/${clientId}/agents shows the outcome`,
        5,
        'timeout',
      ),
  );
  return { client: result.client, ds_notes: request.notes, assignments: result.assignments };
}

/** The request workflow's business failures (src/activities/assignments.ts), as this use case's errors. */
const FAILURE_ERRORS: Record<RequestFailureType, (message: string) => UseCaseError> = {
  ClientNotFound: (message) => new NotFound(message),
  AgentNotAuthorized: (message) => new Invalid(message),
  InvalidData: (message) => new Invalid(message),
};

function requestFailure(error: unknown): UseCaseError | undefined {
  for (let cause = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure && cause.type && Object.hasOwn(FAILURE_ERRORS, cause.type)) {
      return FAILURE_ERRORS[cause.type as RequestFailureType](cause.message);
    }
    if (!(cause instanceof TemporalFailure) && !(cause as { cause?: unknown }).cause) break;
  }
  return undefined;
}
