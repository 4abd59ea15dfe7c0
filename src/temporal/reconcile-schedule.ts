import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client as TemporalClient } from '@temporalio/client';
import { RECONCILE_EVERY_MS, RECONCILE_WORKFLOW, reconcileScheduleId } from '../workflows/definitions';

/**
 * Creates, or brings up to date, the Schedule that runs the reconciler on `taskQueue`. A pass still
 * running when the next is due makes it skip; a pass missed while the cluster was down is not caught up.
 */
export async function ensureReconcileSchedule(temporal: TemporalClient, taskQueue: string): Promise<string> {
  const scheduleId = reconcileScheduleId(taskQueue);
  const options = {
    spec: { intervals: [{ every: RECONCILE_EVERY_MS }] },
    action: { type: 'startWorkflow' as const, workflowType: RECONCILE_WORKFLOW, taskQueue, workflowId: scheduleId, args: [] as [] },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: 60_000 },
  };
  try {
    await temporal.schedule.create({ scheduleId, ...options, state: { note: 'Gives rows left without their workflow (Terminate in the UI) a running workflow again' } });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await temporal.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec: options.spec, action: options.action, policies: { ...previous.policies, ...options.policies } }));
  }
  return scheduleId;
}
