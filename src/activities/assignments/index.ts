import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  expireDueAssignments,
  recordAssignmentRequest,
  takeOverClientClocks,
  type AssignmentClockDeps,
} from '../../use-cases/assignments/clocks';
import { extendIntoNextPeriod } from '../../use-cases/rotation/advance';
import { refusedDataFailure } from '../refused-data';
import {
  RequestFailureType,
  type AssignmentClock,
  type AssignRequestOutcome,
  type AssignUpdateInput,
  type RecordedAssignRequests,
  type RecordAssignmentsInput,
  type RecordedAssignment,
} from '../../domain';

export type AssignmentActivityDeps = Omit<AssignmentClockDeps, 'extendIntoNextPeriod'>;

/** The client's run that called: the rows it reads become its own. */
const callerWorkflowId = () => {
  const workflowId = activityInfo().workflowExecution?.workflowId;
  if (!workflowId) throw new Error('Called outside a workflow');
  return workflowId;
};

export function createAssignmentActivities(activityDeps: AssignmentActivityDeps) {
  const deps: AssignmentClockDeps = { ...activityDeps, extendIntoNextPeriod };
  /** The client's active assignments, every one of them now under the calling client's run. */
  const takeOverClocks = (clientPk: string): Promise<AssignmentClock[]> => takeOverClientClocks(deps, clientPk, callerWorkflowId());

  /** Checks that the client and every agent are the caller's, then records all assignments or none. */
  const record = async (input: RecordAssignmentsInput): Promise<RecordedAssignment[]> => {
    const recorded = await recordAssignmentRequest(deps, input);
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
        return recorded.assignments;
    }
  };

  return {
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

    /** The client's run: its active assignments, every one of them now under this run. */
    loadClientClocks: (input: { clientPk: string }): Promise<AssignmentClock[]> => takeOverClocks(input.clientPk),

    /** The client's run: every active assignment whose date has come ends (or runs on into its rotation's next period); then the clocks left. */
    expireDueAssignments: (input: { clientPk: string }): Promise<AssignmentClock[]> => expireDueAssignments(deps, input.clientPk),
  };
}
