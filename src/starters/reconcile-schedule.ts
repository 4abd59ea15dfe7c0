import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client as TemporalClient } from '@temporalio/client';
import { housekeepingAttributes } from './search-attributes';
import {
  FULL_RECONCILE_EVERY_MS,
  fullReconcileScheduleId,
  RECONCILE_EVERY_MS,
  RECONCILE_WORKFLOW,
  reconcileScheduleId,
  type ReconcileInput,
} from '../domain';

/**
 * Creates, or brings up to date, the two Schedules that run the reconciler on `taskQueue`: a recent
 * pass every few minutes (rows changed lately, runs that ended abnormally) and a full one every few
 * hours (every active row against every running workflow, minutes of visibility queries at 100,000s of
 * runs). A pass still running when the next is due makes it skip; a pass missed while the cluster was
 * down is not caught up. The ids of both.
 */
export async function ensureReconcileSchedule(temporal: TemporalClient, taskQueue: string): Promise<string[]> {
  const passes: { scheduleId: string; every: number; input: ReconcileInput; note: string }[] = [
    {
      scheduleId: reconcileScheduleId(taskQueue),
      every: RECONCILE_EVERY_MS,
      input: { full: false },
      note: 'Recent pass: rows changed lately, and rows whose run was terminated in the UI, get a running workflow again',
    },
    {
      scheduleId: fullReconcileScheduleId(taskQueue),
      every: FULL_RECONCILE_EVERY_MS,
      input: { full: true },
      note: 'Full pass: every active assignment, unsent message and rotation is checked against the running workflows',
    },
  ];
  for (const { scheduleId, every, input, note } of passes) {
    const options = {
      spec: { intervals: [{ every }] },
      action: {
        type: 'startWorkflow' as const,
        workflowType: RECONCILE_WORKFLOW,
        taskQueue,
        workflowId: scheduleId,
        args: [input],
        // Filterable (Housekeeping IS NULL hides them) and readable in the UI's list; a static text, no data.
        typedSearchAttributes: housekeepingAttributes(input.full ? 'reconcile-full' : 'reconcile-recent'),
        staticSummary: input.full ? 'Housekeeping: full reconciler pass' : 'Housekeeping: recent reconciler pass',
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: 60_000 },
    };
    try {
      await temporal.schedule.create({ scheduleId, ...options, state: { note } });
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      await temporal.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec: options.spec, action: options.action, policies: { ...previous.policies, ...options.policies } }));
    }
  }
  return passes.map(({ scheduleId }) => scheduleId);
}
