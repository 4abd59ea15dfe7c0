import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { FULL_RECONCILE_EVERY_MS, HOUSEKEEPING_RUN_MS, housekeepingWorkflowId, RECONCILE_EVERY_MS, REGISTRATION_REFRESH_EVERY_MS, sweepWebhooksSignal, type ReconcileInput } from '../../src/domain';
import { createTimeSkippingEnvironment } from '../support/helpers';

/*
 * The service's upkeep leaves a handful of runs a day in the workflow list: one housekeeping run per task
 * queue that makes the reconciler's passes (recent every two minutes, full every six hours) and the
 * webhook sweep (hourly, and when signaled), continuing as new every twelve hours. On the time-skipping
 * server, with activities that count what they are asked.
 */
const HOUR = 60 * 60 * 1000;
const ELAPSED = 13.5 * HOUR;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createTimeSkippingEnvironment();
});
afterAll(() => env?.teardown());

function countingActivities() {
  const passes: ReconcileInput[] = [];
  const sweeps: number[] = [];
  const registrationRefreshes: number[] = [];
  return {
    passes,
    sweeps,
    registrationRefreshes,
    activities: {
      async refreshNumberRegistrations() {
        registrationRefreshes.push(await env.currentTimeMs());
        return { read: 0, failed: 0 };
      },
      async reconcileOrphans(input: ReconcileInput) {
        passes.push(input);
        return { full: input.full === true, assignmentsChecked: 0, assignmentsRestarted: 0, messagesChecked: 0, messagesRestarted: 0, rotationsChecked: 0, rotationsRestarted: 0, firstResponseClocksChecked: 0, firstResponseClocksRestarted: 0, routingQueuesChecked: 0, routingQueuesRestarted: 0 };
      },
      async handOverPendingDeliveries() {
        sweeps.push(await env.currentTimeMs());
        return { handedOver: 0 };
      },
    },
  };
}

/** The runs of one workflow id, oldest first, following continue-as-new back from the latest. */
async function runsOf(workflowId: string): Promise<string[]> {
  const runs: string[] = [];
  let runId: string | undefined = (await env.client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    runs.unshift(runId);
    const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}

test('thirteen and a half idle hours leave two housekeeping runs, with a recent pass every 2 minutes, a full one every 6 hours, an hourly sweep and an hourly read of the numbers\' registrations', async () => {
  const taskQueue = `housekeeping-${randomUUID()}`;
  const counted = countingActivities();
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: counted.activities,
  });
  const workflowId = housekeepingWorkflowId(taskQueue);
  await worker.runUntil(async () => {
    const started = await env.currentTimeMs();
    await env.client.workflow.start('housekeeping', { workflowId, taskQueue, args: [{ sweepEveryMs: HOUR, sweepGraceMs: 10_000 }] });
    await env.sleep(ELAPSED);

    const runs = await runsOf(workflowId);
    expect(HOUSEKEEPING_RUN_MS).toBe(12 * HOUR);
    expect(runs).toHaveLength(2);
    expect((await env.client.workflow.getHandle(workflowId).describe()).status.name).toBe('RUNNING');

    const full = counted.passes.filter((p) => p.full).length;
    const recent = counted.passes.filter((p) => !p.full).length;
    // Full passes at 0 h, 6 h and 12 h (carried across continue-as-new, not repeated by it).
    expect(full).toBe(Math.floor(ELAPSED / FULL_RECONCILE_EVERY_MS) + 1);
    // A recent pass every 2 minutes in between: 13.5 hours hold 405 intervals, less the three full passes, give or take the edges.
    expect(recent).toBeGreaterThanOrEqual(ELAPSED / RECONCILE_EVERY_MS - 3 - 5);
    expect(recent).toBeLessThanOrEqual(ELAPSED / RECONCILE_EVERY_MS);
    // Hourly sweeps: 13 of them.
    expect(counted.sweeps).toHaveLength(13);
    expect(counted.sweeps[0] - started).toBeGreaterThanOrEqual(HOUR - 1000);
    // The numbers' A2P registrations read again hourly, carried across continue-as-new as well (issue 51).
    expect(REGISTRATION_REFRESH_EVERY_MS).toBe(HOUR);
    expect(counted.registrationRefreshes).toHaveLength(13);
    expect(counted.registrationRefreshes[0] - started).toBeGreaterThanOrEqual(HOUR - 1000);

    // Deliveries left behind: a signal sweeps now, not at the next hour (half an hour away).
    const signaledAt = await env.currentTimeMs();
    await env.client.workflow.getHandle(workflowId).signal(sweepWebhooksSignal);
    await env.sleep(1000);
    expect(counted.sweeps).toHaveLength(14);
    expect(counted.sweeps[13] - signaledAt).toBeLessThan(60_000);
    expect((await runsOf(workflowId)).length).toBe(2);
    await env.client.workflow.getHandle(workflowId).terminate('test over');
  });
});
