import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client as TemporalClient } from '@temporalio/client';
import { SWEEP_WEBHOOKS_WORKFLOW, webhookSweepScheduleId, type SweepWebhooksInput } from '../domain';
import { housekeepingAttributes } from './search-attributes';

/**
 * How often the Schedule runs the sweep by itself: for retention and abandoned deliveries, and as a
 * backstop. Deliveries left without their workflow make the worker trigger it sooner (watchForSweepWork).
 */
export const WEBHOOK_SWEEP_BACKSTOP_EVERY_MS = 60 * 60 * 1000;

/**
 * Creates, or brings up to date, the Schedule that hands over webhook deliveries a crash left without
 * their workflow (committed, then the process died before it started them). A sweep still running when
 * the next is due makes it skip.
 */
export async function ensureWebhookSweepSchedule(temporal: TemporalClient, taskQueue: string, settings: { everyMs: number; graceMs: number }): Promise<string> {
  const scheduleId = webhookSweepScheduleId(taskQueue);
  const options = {
    spec: { intervals: [{ every: settings.everyMs }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: SWEEP_WEBHOOKS_WORKFLOW,
      taskQueue,
      workflowId: scheduleId,
      args: [{ graceMs: settings.graceMs }] as [SweepWebhooksInput],
      // Filterable (Housekeeping IS NULL hides it) and readable in the UI's list; a static text, no data.
      typedSearchAttributes: housekeepingAttributes('webhook-sweep'),
      staticSummary: 'Housekeeping: webhook sweep',
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: 60_000 },
  };
  try {
    await temporal.schedule.create({ scheduleId, ...options, state: { note: 'Starts the delivery workflow of webhook deliveries committed but never handed over' } });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await temporal.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec: options.spec, action: options.action, policies: { ...previous.policies, ...options.policies } }));
  }
  return scheduleId;
}

/** Runs the sweep now, unless one is running (the Schedule skips an overlapping run). */
export async function triggerWebhookSweep(temporal: TemporalClient, scheduleId: string): Promise<void> {
  await temporal.schedule.getHandle(scheduleId).trigger(ScheduleOverlapPolicy.SKIP);
}
