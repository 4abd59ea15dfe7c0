import { ApplicationFailure } from '@temporalio/common';
import type { Client as TemporalClient } from '@temporalio/client';
import { expireAssignmentIfDue, findActiveAssignment, recordAssignments, type Pair } from '../db/assignments';
import type { Prisma } from '../db/prisma';
import { searchAttributesOf } from '../temporal/search-attributes';
import {
  ASSIGNMENT_EXPIRY_WORKFLOW,
  assignmentChangedSignal,
  assignmentWorkflowId,
  type AssignmentExpiryWorkflow,
  RequestFailureType,
  type AssignAgentsInput,
  type AssignmentExpiryInput,
  type ExpiryCheck,
  type RecordedAssignment,
} from '../workflows/definitions';

export interface AssignmentActivityDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

export function createAssignmentActivities({ prisma, temporal, taskQueue }: AssignmentActivityDeps) {
  return {
    /** Checks that the client and every agent are the caller's, then records all assignments or none. */
    async recordAssignments(input: AssignAgentsInput): Promise<RecordedAssignment[]> {
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
        case 'recorded':
          return recorded.assignments;
      }
    },

    /** Starts the expiry workflow of each pair, or wakes the running one to re-read its new date. */
    async scheduleAssignmentExpiries(expiries: AssignmentExpiryInput[]): Promise<void> {
      await Promise.all(
        expiries.map((expiry) =>
          temporal.workflow.signalWithStart<AssignmentExpiryWorkflow, []>(ASSIGNMENT_EXPIRY_WORKFLOW, {
            workflowId: assignmentWorkflowId(expiry),
            taskQueue,
            args: [expiry],
            signal: assignmentChangedSignal,
            signalArgs: [],
            typedSearchAttributes: searchAttributesOf(expiry),
            staticSummary: `Agent ${expiry.agentId} on client ${expiry.clientId}: expires the assignment at its dt_until`,
          }),
        ),
      );
    },

    loadActiveAssignment: (pair: Pair): Promise<{ dtUntil: string } | null> => findActiveAssignment(prisma, pair),

    /** Marks the pair's active assignment expired if its date has come; otherwise says what is there. */
    expireAssignmentIfDue: (pair: Pair): Promise<ExpiryCheck> => expireAssignmentIfDue(prisma, pair),
  };
}
