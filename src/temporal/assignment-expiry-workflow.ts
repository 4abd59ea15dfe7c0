import type { Client as TemporalClient } from '@temporalio/client';
import { searchAttributesOf } from './search-attributes';
import { taskQueuesOf } from './task-queues';
import {
  ASSIGNMENT_EXPIRY_WORKFLOW,
  assignmentChangedSignal,
  type AssignmentExpiryInput,
  type AssignmentExpiryWorkflow,
} from '../workflows/definitions';

/** Starts the pair's expiry workflow under `workflowId` on the expiry queue, or wakes the running one (on whichever queue it runs) to re-read its row. */
export async function startOrWakeExpiry(temporal: TemporalClient, baseTaskQueue: string, workflowId: string, expiry: AssignmentExpiryInput): Promise<void> {
  await temporal.workflow.signalWithStart<AssignmentExpiryWorkflow, []>(ASSIGNMENT_EXPIRY_WORKFLOW, {
    workflowId,
    taskQueue: taskQueuesOf(baseTaskQueue).expiry,
    args: [expiry],
    signal: assignmentChangedSignal,
    signalArgs: [],
    typedSearchAttributes: searchAttributesOf(expiry),
    staticSummary: `Agent ${expiry.agentId} on client ${expiry.clientId}: expires the assignment at its dt_until`,
  });
}
