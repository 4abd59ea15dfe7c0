import { isGrpcServiceError, WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client as TemporalClient } from '@temporalio/client';
import { ApplicationFailure, WorkflowIdConflictPolicy } from '@temporalio/common';
import {
  applyRotationUpdate,
  assignUpdate,
  clocksChangedSignal,
  CLIENT_WORKFLOW,
  clientWorkflowId,
  taskQueuesOf,
  type ApplyRotationInput,
  type AssignAgentsResult,
  type AssignUpdateInput,
  type ClientOwnershipWorkflow,
  type ClientRunInput,
  type ClockKind,
} from '../domain';
import { TemporalBusyError } from './admission';
import { answers, markUnreachable, refuseWhileKnownDown } from './availability';
import { noteRunAnswered } from './run-answers';
import { searchAttributesOf } from './search-attributes';
import { executionsOf } from '../temporal-client/executions';

/* The one place a client's run (`clientOwnership`) is started, updated and woken. */

export type ClientKeys = Pick<ClientRunInput, 'business' | 'clientId' | 'clientPk'>;

/** The client's run did not answer by the deadline: it was started (or ran already) and answers on its own. */
export class ClientRunTimeoutError extends Error {
  constructor(readonly workflowId: string) {
    super(`The client's run ${workflowId} did not answer in time`);
    this.name = 'ClientRunTimeoutError';
  }
}

function startOptions(baseTaskQueue: string, keys: ClientKeys) {
  return {
    workflowId: clientWorkflowId(keys),
    taskQueue: taskQueuesOf(baseTaskQueue).assign,
    args: [{ business: keys.business, clientId: keys.clientId, clientPk: keys.clientPk }] as [ClientRunInput],
    typedSearchAttributes: searchAttributesOf({ business: keys.business, clientId: keys.clientId }),
    staticSummary: `Client ${keys.clientId}: its assignments' expiry, first-response clocks and rotation`.slice(0, 200),
  };
}

/**
 * Update-with-Start: the client's run (started if none is open) records the request's assignments and
 * answers. Waits until `deadline`; past it, a run that started answers later on its own
 * (ClientRunTimeoutError), while a Temporal that never answered is unavailable (TemporalUnavailableError).
 * `gaveUp`: the caller stopped waiting (the request was withdrawn); a request still waiting for a place on
 * the run is never sent, and one sent stops being waited for.
 */
export async function assignThroughClientRun(
  temporal: TemporalClient,
  baseTaskQueue: string,
  keys: ClientKeys,
  update: AssignUpdateInput,
  deadline: number,
  gaveUp?: AbortSignal,
): Promise<AssignAgentsResult> {
  refuseWhileKnownDown(temporal);
  return withPlaceOnRun(clientWorkflowId(keys), deadline, gaveUp, () => updateWithStart(temporal, baseTaskQueue, keys, update, deadline, gaveUp));
}

async function updateWithStart(temporal: TemporalClient, baseTaskQueue: string, keys: ClientKeys, update: AssignUpdateInput, deadline: number, gaveUp?: AbortSignal): Promise<AssignAgentsResult> {
  for (;;) {
    if (gaveUp?.aborted) throw gaveUp.reason;
    // One operation per attempt: the SDK uses each once.
    const startWorkflowOperation = new WithStartWorkflowOperation<ClientOwnershipWorkflow>(CLIENT_WORKFLOW, {
      ...startOptions(baseTaskQueue, keys),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    });
    try {
      const call = () => temporal.workflow.executeUpdateWithStart(assignUpdate, { args: [update], updateId: update.requestKey, startWorkflowOperation });
      const answer = await temporal.connection.withDeadline(deadline, () => (gaveUp ? temporal.connection.withAbortSignal(gaveUp, call) : call()));
      noteRunAnswered(temporal);
      return answer;
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) noteRunAnswered(temporal);
      if (gaveUp?.aborted) throw gaveUp.reason;
      // The run continued as new in the task that carried the update, which it never took: the next run takes it
      // (recording is idempotent under the request's key, should a handler have run all the same).
      if (isUnprocessedUpdate(error) && Date.now() < deadline) continue;
      throw await assignFailure(temporal, keys, startWorkflowOperation, error);
    }
  }
}

/**
 * The server keeps at most 10 updates in flight per run (`history.maxInFlightUpdates`) and refuses more
 * with ResourceExhausted, which the SDK retries with backoff: a hot client's burst would wait out its
 * deadline on those retries. So this process sends at most this many per run at once; the rest wait here,
 * in order, and the run records each batch that arrives together in one step.
 */
const UPDATES_IN_FLIGHT_PER_RUN = 8;
const placesOnRuns = new Map<string, { taken: number; waiting: (() => void)[] }>();

async function withPlaceOnRun<T>(workflowId: string, deadline: number, gaveUp: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  let places = placesOnRuns.get(workflowId);
  if (!places) placesOnRuns.set(workflowId, (places = { taken: 0, waiting: [] }));
  const release = () => {
    // A freed place passes to the next in line, or is given back.
    const next = places.waiting.shift();
    if (next) next();
    else if (--places.taken === 0) placesOnRuns.delete(workflowId);
  };
  if (places.taken < UPDATES_IN_FLIGHT_PER_RUN) {
    places.taken++;
  } else {
    let admitted = false;
    let admit!: () => void;
    const turn = new Promise<void>((resolve) => (admit = () => ((admitted = true), resolve())));
    places.waiting.push(admit);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(deadline - Date.now(), 0));
      gaveUp?.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([turn, late]);
    clearTimeout(timer);
    if (!admitted) {
      places.waiting.splice(places.waiting.indexOf(admit), 1);
      // Never sent: nothing was recorded, and the caller may come back.
      throw new TemporalBusyError(2);
    }
  }
  try {
    return await work();
  } finally {
    release();
  }
}

/** What an Update-with-Start that failed means for the caller (an assign, or a rotation's PUT). */
async function assignFailure(temporal: TemporalClient, keys: ClientKeys, startWorkflowOperation: WithStartWorkflowOperation<ClientOwnershipWorkflow>, error: unknown): Promise<unknown> {
  if (!isTimeout(error)) return isUnreachable(error) ? markUnreachable(temporal) : error;
  // No answer in time: a run that was started (or was open) answers on its own; a server that does not answer at all is down.
  const started = await startWorkflowOperation.workflowHandle().then(() => true, () => false);
  if (started || (await answers(temporal))) return new ClientRunTimeoutError(clientWorkflowId(keys));
  return markUnreachable(temporal);
}


/**
 * Tells the client's run to re-read these kinds of its rows (every kind when none is named), starting it
 * if none is open: a path that committed the rows itself (routing, an answer, a rotation, the reconciler).
 */
export async function wakeClientRun(temporal: TemporalClient, baseTaskQueue: string, keys: ClientKeys, kinds: ClockKind[] = []): Promise<void> {
  await temporal.workflow.signalWithStart<ClientOwnershipWorkflow, [ClockKind[]]>(CLIENT_WORKFLOW, {
    ...startOptions(baseTaskQueue, keys),
    signal: clocksChangedSignal,
    signalArgs: [kinds],
  });
}

/** Tells the open client's run to re-read these kinds of its rows; a run that is not open holds nothing to drop. Best effort. */
export async function tellClientRun(temporal: TemporalClient, keys: ClientKeys, kinds: ClockKind[], log?: (error: unknown) => void): Promise<void> {
  try {
    await temporal.workflow.getHandle<ClientOwnershipWorkflow>(clientWorkflowId(keys)).signal(clocksChangedSignal, kinds);
  } catch (error) {
    if ((error as Error).name !== 'WorkflowNotFoundError') log?.(error);
  }
}

/**
 * Update-with-Start: the client's run (started if none is open) applies the rotation's `version` — hands
 * out what is due now — and answers; waits up to `waitMs`. A run that was started (or was open) but did not
 * answer in time applies it on its own; a Temporal that never answered is unavailable (TemporalUnavailableError).
 */
export async function applyRotationThroughClientRun(temporal: TemporalClient, baseTaskQueue: string, keys: ClientKeys, input: ApplyRotationInput, waitMs: number): Promise<void> {
  refuseWhileKnownDown(temporal);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const startWorkflowOperation = new WithStartWorkflowOperation<ClientOwnershipWorkflow>(CLIENT_WORKFLOW, {
      ...startOptions(baseTaskQueue, keys),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    });
    try {
      await temporal.connection.withDeadline(deadline, () => temporal.workflow.executeUpdateWithStart(applyRotationUpdate, { args: [input], startWorkflowOperation }));
      noteRunAnswered(temporal);
      return;
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) noteRunAnswered(temporal);
      if (isUnprocessedUpdate(error) && Date.now() < deadline) continue;
      const failure = await assignFailure(temporal, keys, startWorkflowOperation, error);
      if (failure instanceof ClientRunTimeoutError) return;
      throw failure;
    }
  }
}

/** Whether `error` or one of its causes matches. */
function causedBy(error: unknown, matches: (cause: Error) => boolean): boolean {
  for (let cause = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
    if (matches(cause)) return true;
    if ((cause as { cause?: unknown }).cause === cause) break;
  }
  return false;
}

/** gRPC's DEADLINE_EXCEEDED or CANCELLED, as the SDK reports them for an update. */
const isTimeout = (error: unknown) =>
  causedBy(error, (cause) => cause.name === 'WorkflowUpdateRPCTimeoutOrCancelledError' || (isGrpcServiceError(cause) && (cause.code === 4 || cause.code === 1)));

/** gRPC's UNAVAILABLE: nothing answers at Temporal's address. */
const isUnreachable = (error: unknown) => causedBy(error, (cause) => isGrpcServiceError(cause) && cause.code === 14);

/** The server rejected the update because the task that carried it completed the run (continue-as-new) without taking it. */
const isUnprocessedUpdate = (error: unknown) => causedBy(error, (cause) => cause instanceof ApplicationFailure && cause.type === 'UnprocessedUpdate');

/**
 * Wakes the open client runs of the Worker Deployment `deploymentName` that are on none of the versions
 * `keep` (`deployment:buildId`): a "re-read every kind" signal, whose workflow task tells a run asleep on a
 * far clock that a newer version is its target, so that it continues as new there. `woken` holds when each
 * run was last signaled: it is signaled again only `againAfterMs` later (a task that ran before the new
 * routing reached the run's partition saw no new target). Returns how many were signaled.
 */
export async function wakeClientRunsOffVersions(temporal: TemporalClient, deploymentName: string, keep: readonly string[], woken: Map<string, number>, againAfterMs: number): Promise<number> {
  const query = `WorkflowType = '${CLIENT_WORKFLOW}' AND ExecutionStatus = 'Running' AND TemporalWorkerDeployment = '${deploymentName}'${keep.map((v) => ` AND TemporalWorkerDeploymentVersion != '${v}'`).join('')}`;
  let count = 0;
  for await (const { workflowId, runId } of executionsOf(temporal, query)) {
    const last = woken.get(runId);
    if (last !== undefined && Date.now() - last < againAfterMs) continue;
    woken.set(runId, Date.now());
    // A run that ended meanwhile has nothing to move.
    await temporal.workflow.getHandle<ClientOwnershipWorkflow>(workflowId, runId).signal(clocksChangedSignal, []).catch(() => undefined);
    count++;
  }
  return count;
}
