import { type Client as TemporalClient, ScheduleNotFoundError, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import {
  fullReconcileScheduleId,
  HOUSEKEEPING_WORKFLOW,
  type HousekeepingInput,
  housekeepingWorkflowId,
  reconcileScheduleId,
  sweepWebhooksSignal,
  webhookSweepScheduleId,
} from '../domain';
import { housekeepingAttributes } from './search-attributes';

/* The one place the housekeeping run (the reconciler's passes and the webhook sweep) is started or signaled. */

/** How often the housekeeping run sweeps webhook deliveries by itself (retention, abandoned deliveries, a backstop); deliveries left behind make the worker ask sooner. */
export const WEBHOOK_SWEEP_BACKSTOP_EVERY_MS = 60 * 60 * 1000;

function housekeepingOptions(taskQueue: string, input: HousekeepingInput) {
  return {
    workflowId: housekeepingWorkflowId(taskQueue),
    taskQueue,
    args: [input] as [HousekeepingInput],
    // Any run that ended (terminated in the UI, failed) may be followed by a new one; a running one is kept.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    // Filterable (Housekeeping IS NULL hides it) and readable in the UI's list; a static text, no data.
    typedSearchAttributes: housekeepingAttributes('housekeeping'),
    staticSummary: 'Housekeeping: reconciler passes and webhook sweep',
  };
}

/**
 * Starts the housekeeping run of `taskQueue` unless it is running: every worker does at start and then
 * every few minutes, so a run an operator terminated is back within minutes. An RPC, no history event.
 */
export async function ensureHousekeeping(temporal: TemporalClient, taskQueue: string, input: HousekeepingInput): Promise<void> {
  try {
    await temporal.workflow.start(HOUSEKEEPING_WORKFLOW, housekeepingOptions(taskQueue, input));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Asks the housekeeping run to sweep webhook deliveries now (starting it if it is not running). */
export async function askForWebhookSweep(temporal: TemporalClient, taskQueue: string, input: HousekeepingInput): Promise<void> {
  await temporal.workflow.signalWithStart(HOUSEKEEPING_WORKFLOW, { ...housekeepingOptions(taskQueue, input), signal: sweepWebhooksSignal, signalArgs: [] });
}

/** Deletes the reconciler's and the sweep's Schedules where a deployment still has them: the housekeeping run does their work, and each of their runs is one more line in the UI's list. */
export async function removeHousekeepingSchedules(temporal: TemporalClient, taskQueue: string): Promise<void> {
  for (const scheduleId of [reconcileScheduleId(taskQueue), fullReconcileScheduleId(taskQueue), webhookSweepScheduleId(taskQueue)]) {
    await temporal.schedule
      .getHandle(scheduleId)
      .delete()
      .catch((error: unknown) => {
        if (!(error instanceof ScheduleNotFoundError)) throw error;
      });
  }
}
