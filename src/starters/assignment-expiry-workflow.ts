import type { Client as TemporalClient } from '@temporalio/client';
import { searchAttributesOf } from './search-attributes';
import {
  taskQueuesOf,
  ASSIGNMENT_EXPIRY_WORKFLOW,
  assignmentChangedSignal,
  type AssignmentExpiryInput,
  type AssignmentExpiryWorkflow,
} from '../domain';

/* The one place a (client, agent) pair's expiry workflow (`assignmentExpiry`) is started or woken. */

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

/**
 * Tells the pair's running expiry workflow to re-read its row (an unassignment, or a rotation's "apply
 * now" that cut its period short). Best effort: the row already holds the answer, and a workflow that
 * missed the signal reads it at its next wake-up; only a failure other than "no such run" is logged.
 */
export async function wakeExpiry(temporal: TemporalClient, workflowId: string, log?: (error: unknown) => void): Promise<void> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(assignmentChangedSignal);
  } catch (error) {
    if ((error as Error).name !== 'WorkflowNotFoundError') log?.(error);
  }
}
