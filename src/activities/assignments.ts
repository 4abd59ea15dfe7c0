import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client as TemporalClient } from '@temporalio/client';
import { listActiveClocks, listDueAssignments, takeOverActiveClocks } from '../db/assignment-clocks';
import { endAssignmentByOperator, endClientAssignmentsByOperator, expireAssignmentIfDue, findActiveAssignment, recordAssignments, type Pair } from '../db/assignments';
import type { Prisma } from '../db/prisma';
import { extendIntoNextPeriod } from '../use-cases/rotation/advance';
import { startOrWakeExpiry, wakeExpiry } from '../starters/assignment-expiry-workflow';
import { wakeQueuesOfClientOwner } from '../use-cases/assignments/after-change';
import { refusedDataFailure } from './refused-data';
import {
  RequestFailureType,
  type AssignmentClock,
  type AssignRequestOutcome,
  type AssignUpdateInput,
  type RecordedAssignRequests,
  type RecordAssignmentsInput,
  type ExpiryCheck,
  type RecordedAssignment,
} from '../domain';

export interface AssignmentActivityDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/** The run that called: an older per-pair run acts only on rows it still holds. */
const callerWorkflowId = () => {
  const workflowId = activityInfo().workflowExecution?.workflowId;
  if (!workflowId) throw new Error('Called outside a workflow');
  return workflowId;
};

export function createAssignmentActivities({ prisma, temporal, taskQueue }: AssignmentActivityDeps) {
  /** Tells the per-pair runs of an older build whose rows the client's run took over to re-read them: they end. */
  const releaseReplacedRuns = async (workflowIds: Iterable<string>) => {
    for (const workflowId of new Set(workflowIds)) await wakeExpiry(temporal, workflowId);
  };

  /**
   * The pair's active assignment is due: a rotation whose next period is the same agent's extends it
   * (see extendIntoNextPeriod), else it expires and the owner's routing queues get the freed capacity.
   */
  const expirePair = async (pair: Pair, workflowId?: string): Promise<ExpiryCheck> => {
    const extended = await extendIntoNextPeriod(prisma, pair);
    // Another agent took the period (this one could not): its assignment needs its clock.
    if (extended?.wake && extended.wake.expiry.agentPk !== pair.agentPk) await startOrWakeExpiry(temporal, taskQueue, extended.wake.workflowId, extended.wake.expiry);
    const check = await expireAssignmentIfDue(prisma, pair, new Date(), workflowId);
    if (check.status === 'expired') await wakeQueuesOfClientOwner({ prisma, temporal, taskQueue }, pair.clientPk);
    return check;
  };

  /** The client's active assignments, every one of them now under the calling client's run. */
  const takeOverClocks = async (clientPk: string): Promise<AssignmentClock[]> => {
    const { clocks, replaced } = await takeOverActiveClocks(prisma, clientPk, callerWorkflowId());
    await releaseReplacedRuns(replaced);
    return clocks;
  };

  /** Checks that the client and every agent are the caller's, then records all assignments or none. */
  const record = async (input: RecordAssignmentsInput): Promise<RecordedAssignment[]> => {
    const recorded = await recordAssignments(prisma, input);
    switch (recorded.outcome) {
      case 'clientNotFound':
        throw ApplicationFailure.create({ type: RequestFailureType.ClientNotFound, message: 'Client not found', nonRetryable: true });
      case 'agentNotAuthorized':
        throw ApplicationFailure.create({
          type: RequestFailureType.AgentNotAuthorized,
          message: `Agent ${recorded.agentId} not found or not authorized`,
          nonRetryable: true,
        });
      case 'requestExpired':
        throw ApplicationFailure.create({
          type: 'AssignRequestExpired',
          message: 'The request is no longer in assign_requests (kept for a week); nothing was assigned',
          nonRetryable: true,
        });
      case 'withdrawn':
        throw ApplicationFailure.create({
          type: 'AssignRequestWithdrawn',
          message: 'The API answered 503 before this request was recorded (its run was behind); nothing was assigned',
          nonRetryable: true,
        });
      case 'recorded':
        await releaseReplacedRuns(recorded.assignments.flatMap((a) => a.replacedWorkflowId ?? []));
        return recorded.assignments;
    }
  };

  return {
    recordAssignments: record,

    /**
     * The client's run: the requests that queued while it recorded the last ones, each in its own
     * transaction, in order, then the client's active assignments as they stand after them (the run's
     * clocks, read once for the batch). A request's business failure is its own; a failure that may heal
     * (the database) fails the batch, whose retry answers the requests already recorded from their settled rows.
     */
    async recordAssignmentRequests(input: { business: string; clientId: string; clientPk: string; requests: AssignUpdateInput[] }): Promise<RecordedAssignRequests> {
      const outcomes: AssignRequestOutcome[] = [];
      for (const request of input.requests) {
        try {
          outcomes.push({ ok: true, assignments: await record({ business: input.business, clientId: input.clientId, agents: request.agents, requestKey: request.requestKey }) });
        } catch (error) {
          const failure = error instanceof ApplicationFailure && error.nonRetryable ? error : refusedDataFailure(error);
          if (!failure) throw error;
          outcomes.push({ ok: false, type: failure.type ?? 'Error', message: failure.message });
        }
      }
      return { outcomes, clocks: await takeOverClocks(input.clientPk) };
    },

    /** Starts or wakes the run that holds each recorded assignment's clock (a request workflow of an older build calls this). */
    async scheduleAssignmentExpiries(expiries: Pick<RecordedAssignment, 'workflowId' | 'expiry'>[]): Promise<void> {
      await Promise.all(expiries.map(({ workflowId, expiry }) => startOrWakeExpiry(temporal, taskQueue, workflowId, expiry)));
    },

    /** The client's run: its active assignments, every one of them now under this run. */
    loadClientClocks: (input: { clientPk: string }): Promise<AssignmentClock[]> => takeOverClocks(input.clientPk),

    /** The client's run: every active assignment whose date has come ends (or runs on into its rotation's next period); then the clocks left. */
    async expireDueAssignments(input: { clientPk: string }): Promise<AssignmentClock[]> {
      for (const { agentPk } of await listDueAssignments(prisma, input.clientPk, new Date())) await expirePair({ clientPk: input.clientPk, agentPk });
      return listActiveClocks(prisma, input.clientPk);
    },

    /** An operator canceled the client's run: every active assignment it holds ends now, as unassigned by an operator. */
    async endClientAssignmentsByOperator(input: { clientPk: string }): Promise<number> {
      const ended = await endClientAssignmentsByOperator(prisma, input.clientPk, callerWorkflowId());
      if (ended > 0) await wakeQueuesOfClientOwner({ prisma, temporal, taskQueue }, input.clientPk);
      return ended;
    },

    /** An operator canceled an older per-pair run: its active assignment ends now, as unassigned by an operator. */
    async endAssignmentByOperator(pair: Pair): Promise<boolean> {
      const ended = await endAssignmentByOperator(prisma, pair, callerWorkflowId());
      if (ended) await wakeQueuesOfClientOwner({ prisma, temporal, taskQueue }, pair.clientPk);
      return ended;
    },

    /** An older per-pair run: its pair's active assignment, while that run still holds its clock. */
    loadActiveAssignment: (pair: Pair): Promise<{ dtUntil: string } | null> => findActiveAssignment(prisma, pair, callerWorkflowId()),

    /** An older per-pair run: marks its pair's assignment expired if its date has come; otherwise says what is there. */
    async expireAssignmentIfDue(pair: Pair): Promise<ExpiryCheck> {
      const workflowId = callerWorkflowId();
      if (!(await findActiveAssignment(prisma, pair, workflowId))) return { status: 'none' };
      return expirePair(pair, workflowId);
    },
  };
}
