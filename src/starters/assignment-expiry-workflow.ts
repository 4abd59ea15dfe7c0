import type { Client as TemporalClient } from '@temporalio/client';
import { assignmentChangedSignal, type AssignmentExpiryInput } from '../domain';
import { wakeClientRun } from './client-workflow';

/* The clock of an assignment is its client's run (src/starters/client-workflow.ts). */

/** Hands the assignment's clock to its client's run (started if none is open), which re-reads the client's rows. */
export async function startOrWakeExpiry(temporal: TemporalClient, baseTaskQueue: string, _workflowId: string, expiry: AssignmentExpiryInput): Promise<void> {
  await wakeClientRun(temporal, baseTaskQueue, expiry, ['assignments']);
}

/**
 * Tells the run that holds an assignment's clock (the row's `workflow_id`: the client's run) to re-read its rows — after an unassignment, or a rotation's "apply now" that cut a period
 * short. Best effort: the row already holds the answer; only a failure other than "no such run" is logged.
 */
export async function wakeExpiry(temporal: TemporalClient, workflowId: string, log?: (error: unknown) => void): Promise<void> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(assignmentChangedSignal);
  } catch (error) {
    if ((error as Error).name !== 'WorkflowNotFoundError') log?.(error);
  }
}
