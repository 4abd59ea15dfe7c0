import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { generatePayloadKey, parsePayloadKeys } from '../../../src/config/payload-keys';
import { AesGcmPayloadCodec } from '../../../src/temporal-client/payload-codec';
import { createReconcileActivities } from '../../../src/activities/housekeeping/reconcile';
import { housekeepingWorkflowId } from '../../../src/domain';
import { ensureHousekeeping, WEBHOOK_SWEEP_BACKSTOP_EVERY_MS } from '../../../src/starters/housekeeping-workflow';
import { keepHousekeeping } from '../../../src/worker/sweep-trigger';
import { workerMetrics } from '../../../src/worker/telemetry';
import { acceptWithoutHandOver, subscribe, receivedEvents } from '../../support/events';
import { eventually } from '../../support/helpers';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';
import { untilListedEnded } from '../../support/listed-ended';

/* Operators see business runs in the Temporal UI, not the service's upkeep; the worker's metrics show the webhook backlog and the reconciler's restarts. */

let stack: TestStack;
let hooks: WebhookReceiver;

beforeAll(async () => {
  stack = await startTestStack();
  hooks = await startWebhookReceiver();
});
afterAll(async () => {
  await stack?.temporal.workflow.getHandle(housekeepingWorkflowId(stack.taskQueue)).terminate('suite over').catch(() => undefined);
  await hooks?.close();
  await stack?.stop();
});

const runsOf = async (query: string) => {
  const runs: { workflowId: string; type: string }[] = [];
  for await (const run of stack.temporal.workflow.list({ query })) runs.push({ workflowId: run.workflowId, type: run.type });
  return runs;
};

test("the housekeeping run carries the Housekeeping attribute and a summary, so the saved view 'Housekeeping IS NULL' lists business runs only", async () => {
  await ensureHousekeeping(stack.temporal, stack.taskQueue, { sweepEveryMs: WEBHOOK_SWEEP_BACKSTOP_EVERY_MS, sweepGraceMs: 60_000 });
  // A second worker's start finds it running: still one run.
  await ensureHousekeeping(stack.temporal, stack.taskQueue, { sweepEveryMs: WEBHOOK_SWEEP_BACKSTOP_EVERY_MS, sweepGraceMs: 60_000 });
  const token = stack.token(uniqueName('user'));
  const message = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client_phone: '+14155550100', text_message: 'Hi', delay: 'PT1H' } });
  expect(message.status).toBe(202);

  const inQueue = `TaskQueue = '${stack.taskQueue}'`;
  const housekeeping = await eventually(async () => {
    const runs = await runsOf(`${inQueue} AND Housekeeping IS NOT NULL`);
    return runs.length >= 1 ? runs : undefined;
  });
  expect(housekeeping).toEqual([{ workflowId: housekeepingWorkflowId(stack.taskQueue), type: 'housekeeping' }]);
  // The saved view's query: this suite's business runs (the message's, on its own task queue) and no housekeeping.
  const business = await eventually(async () => {
    const runs = await runsOf(`BusinessName = '${stack.business}' AND Housekeeping IS NULL`);
    return runs.some((run) => run.workflowId === message.body.workflow_id) ? runs : undefined;
  });
  expect(business.map((run) => run.type)).not.toContain('housekeeping');
  expect(await runsOf(`${inQueue} AND Housekeeping IS NULL AND WorkflowType = 'housekeeping'`)).toEqual([]);

  // The UI's list shows its summary (a fixed text, nothing a user typed).
  const run = await stack.temporal.workflow.getHandle(housekeepingWorkflowId(stack.taskQueue)).describe();
  expect(await run.staticSummary()).toBe('Housekeeping: reconciler passes and webhook sweep');
  // The next test starts its own, without the sweep's grace.
  await stack.temporal.workflow.getHandle(housekeepingWorkflowId(stack.taskQueue)).terminate('next test');
});

test('the sweep runs only when a delivery waits to be handed over: nothing pending, no sweep; a delivery a crash left behind, a sweep that delivers it', async () => {
  const taskQueue = stack.taskQueue;
  const input = { sweepEveryMs: WEBHOOK_SWEEP_BACKSTOP_EVERY_MS, sweepGraceMs: 0 };
  await ensureHousekeeping(stack.temporal, taskQueue, input);
  const handle = stack.temporal.workflow.getHandle(housekeepingWorkflowId(taskQueue));
  const signals = async () => (await handle.fetchHistory()).events!.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
  const signalsBefore = await signals();

  // Only deliveries older than ten years would count: there are none, so the keeper never asks.
  const idle = keepHousekeeping({ prisma: stack.prisma, temporal: stack.temporal, taskQueue, input: { ...input, sweepGraceMs: 10 * 365 * 24 * 3_600_000 }, everyMs: 200 });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  idle.stop();
  expect(await signals()).toBe(signalsBefore);

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

  const watching = keepHousekeeping({ prisma: stack.prisma, temporal: stack.temporal, taskQueue, input, everyMs: 200 });
  try {
    const [request] = await receivedEvents(hooks, 1);
    expect(JSON.parse(request.rawBody)).toMatchObject({ type: 'message.scheduled', data: { _id: message.body._id } });
    expect(await signals()).toBeGreaterThan(signalsBefore);
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
  await untilListedEnded(stack.temporal, message.body.workflow_id);
  const reconciler = createReconcileActivities({ prisma: stack.prisma, temporal: stack.temporal, taskQueue: stack.taskQueue, observeReconcilerRestart: metrics.observeReconcilerRestart });
  const result = (await new MockActivityEnvironment().run(reconciler.reconcileOrphans, { graceMs: 0, business: stack.business, full: true })) as { messagesRestarted: number };
  expect(result.messagesRestarted).toBe(1);
  expect(await metrics.registry.getSingleMetricAsString('crm_reconciler_restarts_total')).toContain('crm_reconciler_restarts_total{kind="message"} 1');
});

test('a run whose memo this client cannot decode (another payload key) does not stop a reconciler pass', async () => {
  const otherKey = new Client({ connection: stack.temporal.connection, namespace: stack.temporal.options.namespace, dataConverter: { payloadCodecs: [new AesGcmPayloadCodec(parsePayloadKeys(generatePayloadKey('retired')))] } });
  const stranger = await otherKey.workflow.start('sendMessage', { workflowId: `stranger/${randomUUID()}`, taskQueue: uniqueName('nobody'), args: [], memo: { note: 'sealed' } });
  await stranger.terminate('an operator ended it');
  const reconciler = createReconcileActivities({ prisma: stack.prisma, temporal: stack.temporal, taskQueue: stack.taskQueue });
  // The pass lists runs of every business ended lately: the stranger's among them, by id only.
  await eventually(async () => {
    for await (const run of otherKey.workflow.list({ query: `WorkflowId = '${stranger.workflowId}' AND ExecutionStatus = 'Terminated'` })) return run;
    return undefined;
  });
  await expect(new MockActivityEnvironment().run(reconciler.reconcileOrphans, { graceMs: 0, business: stack.business, full: false })).resolves.toEqual(expect.objectContaining({ messagesRestarted: 0 }));
});
