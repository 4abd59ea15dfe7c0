import { MockActivityEnvironment } from '@temporalio/testing';
import { createReconcileActivities } from '../../src/activities/reconcile';
import { ensureReconcileSchedule } from '../../src/starters/reconcile-schedule';
import { ensureWebhookSweepSchedule, WEBHOOK_SWEEP_BACKSTOP_EVERY_MS } from '../../src/starters/sweep-webhook-deliveries-schedule';
import { watchForSweepWork } from '../../src/worker/sweep-trigger';
import { workerMetrics } from '../../src/worker/telemetry';
import { acceptWithoutHandOver, subscribe, receivedEvents } from '../support/events';
import { eventually } from '../support/helpers';
import { startTestStack, uniqueName, type TestStack } from '../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/* Operators see business runs in the Temporal UI, not the service's upkeep; the worker's metrics show the webhook backlog and the reconciler's restarts. */

let stack: TestStack;
let hooks: WebhookReceiver;
const scheduleIds: string[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  hooks = await startWebhookReceiver();
});
afterAll(async () => {
  for (const id of scheduleIds) await stack.temporal.schedule.getHandle(id).delete().catch(() => undefined);
  await hooks?.close();
  await stack?.stop();
});

const runsOf = async (query: string) => {
  const runs: { workflowId: string; type: string }[] = [];
  for await (const run of stack.temporal.workflow.list({ query })) runs.push({ workflowId: run.workflowId, type: run.type });
  return runs;
};

test("housekeeping runs carry the Housekeeping attribute and a summary, so the saved view 'Housekeeping IS NULL' lists business runs only", async () => {
  const reconcileIds = await ensureReconcileSchedule(stack.temporal, stack.taskQueue);
  const sweepId = await ensureWebhookSweepSchedule(stack.temporal, stack.taskQueue, { everyMs: WEBHOOK_SWEEP_BACKSTOP_EVERY_MS, graceMs: 60_000 });
  scheduleIds.push(...reconcileIds, sweepId);
  for (const id of [...reconcileIds, sweepId]) await stack.temporal.schedule.getHandle(id).trigger();
  const token = stack.token(uniqueName('user'));
  const message = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client_phone: '+14155550100', text_message: 'Hi', delay: 'PT1H' } });
  expect(message.status).toBe(202);

  const inQueue = `TaskQueue = '${stack.taskQueue}'`;
  const housekeeping = await eventually(async () => {
    const runs = await runsOf(`${inQueue} AND Housekeeping IS NOT NULL`);
    return runs.length >= 3 ? runs : undefined;
  });
  expect(housekeeping.map((run) => run.type).sort()).toEqual(['reconcile', 'reconcile', 'sweepWebhookDeliveries']);
  expect((await runsOf(`${inQueue} AND Housekeeping = 'webhook-sweep'`)).map((run) => run.workflowId)).toEqual([expect.stringMatching(new RegExp(`^${sweepId}`))]);
  // The saved view's query: this suite's business runs (the message's, on its own task queue) and no housekeeping.
  const business = await eventually(async () => {
    const runs = await runsOf(`BusinessName = '${stack.business}' AND Housekeeping IS NULL`);
    return runs.some((run) => run.workflowId === message.body.workflow_id) ? runs : undefined;
  });
  expect(business.map((run) => run.type)).not.toContain('reconcile');
  expect(await runsOf(`${inQueue} AND Housekeeping IS NULL AND (WorkflowType = 'reconcile' OR WorkflowType = 'sweepWebhookDeliveries')`)).toEqual([]);

  // The UI's list shows each housekeeping run's summary (a fixed text, nothing a user typed).
  const sweepRun = await stack.temporal.workflow.getHandle(housekeeping.find((run) => run.type === 'sweepWebhookDeliveries')!.workflowId).describe();
  expect(await sweepRun.staticSummary()).toBe('Housekeeping: webhook sweep');
});

test('the sweep runs only when a delivery waits to be handed over: nothing pending, no run; a delivery a crash left behind, a run that delivers it', async () => {
  const taskQueue = stack.taskQueue;
  const sweepId = await ensureWebhookSweepSchedule(stack.temporal, taskQueue, { everyMs: WEBHOOK_SWEEP_BACKSTOP_EVERY_MS, graceMs: 0 });
  scheduleIds.push(sweepId);
  const handle = stack.temporal.schedule.getHandle(sweepId);
  const actionsBefore = (await handle.describe()).info.numActionsTaken;

  // Only deliveries older than ten years would count: there are none, so the watcher never triggers.
  const idle = watchForSweepWork({ prisma: stack.prisma, temporal: stack.temporal, scheduleId: sweepId, everyMs: 200, graceMs: 10 * 365 * 24 * 3_600_000 });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  idle.stop();
  expect((await handle.describe()).info.numActionsTaken).toBe(actionsBefore);

  // A delivery committed by an API that died before handing it over.
  const token = stack.token(uniqueName('user'));
  const { _id } = await subscribe(stack.api, token, hooks, { events: ['message.scheduled'] });
  const message = await acceptWithoutHandOver(stack, token, { message_type: 'text', client_phone: '+14155550100', text_message: 'Hi', delay: 'PT1H' });
  const [row] = await stack.prisma.webhookDelivery.findMany({ where: { subscriptionId: _id } });
  expect(row).toMatchObject({ status: 'pending', handedOverAt: null });

  // The backlog shows in the worker's metrics.
  const metrics = workerMetrics(stack.prisma);
  expect(await metrics.registry.getSingleMetricAsString('crm_webhook_deliveries_pending')).toMatch(/^crm_webhook_deliveries_pending [1-9]\d*$/m);
  expect(await metrics.registry.getSingleMetricAsString('crm_webhook_oldest_pending_delivery_age_seconds')).toMatch(/^crm_webhook_oldest_pending_delivery_age_seconds (?!0$)[\d.e+-]+$/m);

  const watching = watchForSweepWork({ prisma: stack.prisma, temporal: stack.temporal, scheduleId: sweepId, everyMs: 200, graceMs: 0 });
  try {
    const [request] = await receivedEvents(hooks, 1);
    expect(JSON.parse(request.rawBody)).toMatchObject({ type: 'message.scheduled', data: { _id: message.body._id } });
    expect((await handle.describe()).info.numActionsTaken).toBeGreaterThan(actionsBefore);
  } finally {
    watching.stop();
  }
});

test('the worker counts the reconciler restarts by kind: a message whose run an operator terminated is one', async () => {
  const metrics = workerMetrics(stack.prisma);
  const before = await metrics.registry.getSingleMetricAsString('crm_reconciler_restarts_total');
  for (const kind of ['assignment', 'message', 'rotation']) expect(before).toContain(`crm_reconciler_restarts_total{kind="${kind}"} 0`);

  const token = stack.token(uniqueName('user'));
  const message = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client_phone: '+14155550100', text_message: 'Later', delay: 'PT1H' } });
  expect(message.status).toBe(202);
  await stack.temporal.workflow.getHandle(message.body.workflow_id).terminate('operator test');
  const reconciler = createReconcileActivities({ prisma: stack.prisma, temporal: stack.temporal, taskQueue: stack.taskQueue, observeReconcilerRestart: metrics.observeReconcilerRestart });
  const result = (await new MockActivityEnvironment().run(reconciler.reconcileOrphans, { graceMs: 0, business: stack.business, full: true })) as { messagesRestarted: number };
  expect(result.messagesRestarted).toBe(1);
  expect(await metrics.registry.getSingleMetricAsString('crm_reconciler_restarts_total')).toContain('crm_reconciler_restarts_total{kind="message"} 1');
});
