import { randomUUID } from 'node:crypto';
import type { Client as TemporalClient } from '@temporalio/client';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { insertAssignRequest } from '../../db/assign-requests';
import type { RecordOutcome } from '../../db/assignments';
import type { Prisma } from '../../db/prisma';
import type { Admissions } from '../../starters/admission';
import { refuseWhileKnownDown } from '../../starters/availability';
import { assignThroughClientRun, ClientRunTimeoutError } from '../../starters/client-workflow';
import { answerOrShed } from './shed';
import { assignAgentsWorkflowId, RequestFailureType, type AssignAgentsResult } from '../../domain';
import { findOwnedClient } from '../clients/owned-client';
import { Invalid, NotFound, Unavailable, type UseCaseError } from '../errors';
import type { Scope } from '../../db/scope';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { ASSIGN_FIELDS, parseAssignRequest, type AssignRequest } from './request';
import { unknownField, unknownFieldError } from '../input/known-fields';
import { findAgents } from '../../db/agents';

export const DEFAULT_ASSIGN_TIMEOUT_MS = 20_000;
/** A request whose run has not answered this long after it arrived is withdrawn and answered 503, while a worker is known to poll (see shed.ts). */
export const DEFAULT_ASSIGN_SHED_AFTER_MS = 10_000;

export interface AssignDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  /** The base task queue (TEMPORAL_TASK_QUEUE); the request's workflow runs on its assign queue. */
  taskQueue: string;
  /** How long a request waits for its validating workflow before answering 504. */
  assignTimeoutMs: number;
  /** Backpressure: a request beyond the places in flight waits briefly, then is a 503 before anything is stored. */
  admission?: Pick<Admissions, 'assign'>;
  /** How long after it arrived a request whose run is behind is withdrawn and answered 503 (DEFAULT_ASSIGN_SHED_AFTER_MS). */
  assignShedAfterMs?: number;
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
  const unknown = unknownField(body, ASSIGN_FIELDS);
  if (unknown) await refuseUnknownField(deps, scope, clientId, request, unknown);
  return assignAgents(deps, scope, clientId, request, requestId, workflowKey);
}

/**
 * A body with a field the route does not know is refused, assigning nothing, but only after the
 * contract's checks 6 and 7 (the client, then each agent in order), which a request with a misspelled
 * field must still answer as the contract says: those are read here, since the run would record.
 */
async function refuseUnknownField(deps: AssignDeps, scope: Scope, clientId: string, request: AssignRequest, unknown: string): Promise<never> {
  await findOwnedClient(deps.prisma, scope, clientId);
  const ids = request.agents.map((a) => a.agentId);
  const owned = new Set((await findAgents(deps.prisma, scope, ids.filter((id) => RESOURCE_ID_PATTERN.test(id)))).map((a) => a.id));
  const missing = ids.find((id) => !owned.has(id));
  if (missing !== undefined) throw new Invalid(`Agent ${missing} not found or not authorized`);
  throw unknownFieldError(unknown);
}

/** The HTTP answer: the workflow's result with the request's notes, which never entered Temporal. */
export type AssignAgentsAnswer = { client: string; ds_notes: string | null; assignments: AssignAgentsResult['assignments'] };

/**
 * Hands the request to the client's run (Update-with-Start) and waits for its answer. The user id and
 * the notes go to PostgreSQL first, under the request's key, for the run's recording transaction to
 * read; the update carries ids and dates only. A Temporal that does not answer is a 503 and nothing was
 * assigned. A request without a caller's key (the HTTP route's) whose run is behind is withdrawn and is a
 * 503 with nothing assigned (shed.ts); a run that has not answered by the deadline while no worker is
 * known to poll is a 504, and it answers on its own. A caller's key (Nexus, a CRM lead) is never
 * withdrawn: its retries join the same request.
 */
export async function assignAgents(
  deps: AssignDeps,
  scope: Scope,
  clientId: string,
  request: AssignRequest,
  _requestId?: string,
  workflowKey?: string,
): Promise<AssignAgentsAnswer> {
  refuseWhileKnownDown(deps.temporal);
  // A wait for a place counts against the same deadline, and so against the shedding.
  const arrived = Date.now();
  const deadline = arrived + deps.assignTimeoutMs;
  const shedAt = workflowKey === undefined ? arrived + (deps.assignShedAfterMs ?? DEFAULT_ASSIGN_SHED_AFTER_MS) : undefined;
  const run = () => askClientRun(deps, scope, clientId, request, deadline, workflowKey ?? randomUUID(), shedAt);
  return deps.admission ? deps.admission.assign.run(scope.ownerId, run) : run();
}

async function askClientRun(deps: AssignDeps, scope: Scope, clientId: string, request: AssignRequest, deadline: number, workflowKey: string, shedAt?: number): Promise<AssignAgentsAnswer> {
  const client = await findOwnedClient(deps.prisma, scope, clientId);
  const requestKey = assignAgentsWorkflowId({ business: scope.business, clientId, requestId: workflowKey });
  await insertAssignRequest(deps.prisma, requestKey, scope, request.notes);
  const keys = { business: scope.business, clientId, clientPk: client.pk };
  const gaveUp = new AbortController();
  try {
    const answer = assignThroughClientRun(deps.temporal, deps.taskQueue, keys, { requestKey, agents: request.agents }, deadline, gaveUp.signal);
    const result =
      shedAt === undefined
        ? await answer
        : await answerOrShed(deps, answer, { requestKey, shedAt, deadline, gaveUp, fromRow: (outcome) => resultOfOutcome(clientId, outcome) });
    return { client: result.client, ds_notes: request.notes, assignments: result.assignments };
  } catch (error) {
    if (error instanceof ClientRunTimeoutError) {
      throw new Unavailable(
        `Assignment workflow ${error.workflowId} did not finish in time; it completes on its own: GET /ext/v2/${scope.business}/clients/${clientId}/agents shows the outcome`,
        5,
        'timeout',
      );
    }
    throw requestFailure(error) ?? error;
  }
}

/** The request workflow's business failures (src/activities/assignments/index.ts), as this use case's errors. */
const FAILURE_ERRORS: Record<RequestFailureType, (message: string) => UseCaseError> = {
  ClientNotFound: (message) => new NotFound(message),
  AgentNotAuthorized: (message) => new Invalid(message),
  InvalidData: (message) => new Invalid(message),
};

/** A request its run recorded, answered from its settled row as the run answers it. */
export function resultOfOutcome(clientId: string, outcome: RecordOutcome): AssignAgentsResult {
  switch (outcome.outcome) {
    case 'recorded':
      return { client: clientId, assignments: outcome.assignments.map((r) => ({ agent: r.agentId, dt_until: r.dtUntil, status: 'active' as const, workflow_id: r.workflowId })) };
    case 'clientNotFound':
      throw FAILURE_ERRORS.ClientNotFound('Client not found');
    case 'agentNotAuthorized':
      throw FAILURE_ERRORS.AgentNotAuthorized(`Agent ${outcome.agentId} not found or not authorized`);
    default:
      throw new Error(`Unexpected outcome ${outcome.outcome} of a request being answered`);
  }
}

function requestFailure(error: unknown): UseCaseError | undefined {
  for (let cause = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
    if (cause instanceof ApplicationFailure && cause.type && Object.hasOwn(FAILURE_ERRORS, cause.type)) {
      return FAILURE_ERRORS[cause.type as RequestFailureType](cause.message);
    }
    if (!(cause instanceof TemporalFailure) && !(cause as { cause?: unknown }).cause) break;
  }
  return undefined;
}
