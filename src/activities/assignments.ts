import { ApplicationFailure } from '@temporalio/common';
import type { Client as TemporalClient } from '@temporalio/client';
import { endAssignmentByOperator, expireAssignmentIfDue, findActiveAssignment, recordAssignments, type Pair } from '../db/assignments';
import type { Prisma } from '../db/prisma';
import { extendIntoNextPeriod } from '../use-cases/rotation/advance';
import { startOrWakeExpiry } from '../starters/assignment-expiry-workflow';
import { wakeQueuesOfClientOwner } from '../use-cases/assignments/after-change';
import {
  RequestFailureType,
  type RecordAssignmentsInput,
  type ExpiryCheck,
  type RecordedAssignment,
} from '../domain';

export interface AssignmentActivityDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

export function createAssignmentActivities({ prisma, temporal, taskQueue }: AssignmentActivityDeps) {
  return {
    /** Checks that the client and every agent are the caller's, then records all assignments or none. */
    async recordAssignments(input: RecordAssignmentsInput): Promise<RecordedAssignment[]> {
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
        case 'recorded':
          return recorded.assignments;
      }
    },

    /** Starts the expiry workflow of each pair under its row's workflow id, or wakes the running one to re-read its new date. */
    async scheduleAssignmentExpiries(expiries: Pick<RecordedAssignment, 'workflowId' | 'expiry'>[]): Promise<void> {
      await Promise.all(expiries.map(({ workflowId, expiry }) => startOrWakeExpiry(temporal, taskQueue, workflowId, expiry)));
    },

    /** An operator canceled the pair's expiry workflow: its active assignment ends now, as unassigned by an operator. */
    async endAssignmentByOperator(pair: Pair): Promise<boolean> {
      const ended = await endAssignmentByOperator(prisma, pair);
      if (ended) await wakeQueuesOfClientOwner({ prisma, temporal, taskQueue }, pair.clientPk);
      return ended;
    },

    loadActiveAssignment: (pair: Pair): Promise<{ dtUntil: string } | null> => findActiveAssignment(prisma, pair),

    /**
     * Marks the pair's active assignment expired if its date has come; otherwise says what is there.
     * A rotation whose next period is the same agent's extends it instead (see extendIntoNextPeriod).
     */
    async expireAssignmentIfDue(pair: Pair): Promise<ExpiryCheck> {
      const extended = await extendIntoNextPeriod(prisma, pair);
      // Another agent took the period (this one could not): its assignment needs its timer.
      if (extended?.wake && extended.wake.expiry.agentPk !== pair.agentPk) await startOrWakeExpiry(temporal, taskQueue, extended.wake.workflowId, extended.wake.expiry);
      const check = await expireAssignmentIfDue(prisma, pair);
      // Capacity freed: clients waiting in the owner's routing queues are assigned now.
      if (check.status === 'expired') await wakeQueuesOfClientOwner({ prisma, temporal, taskQueue }, pair.clientPk);
      return check;
    },
  };
}
