import { MockActivityEnvironment } from '@temporalio/testing';
import { createWebhookActivities } from '../../../src/activities/webhooks';
import { loadConfig, webhookSettingsOf } from '../../../src/config/index';
import { housekeepingWorkflowId } from '../../../src/domain';
import { ensureHousekeeping } from '../../../src/starters/housekeeping-workflow';
import { acceptWithoutHandOver, receivedEvents, subscribe, verified } from '../../support/events';
import { eventually } from '../../support/helpers';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';

/*
 * Nothing depends on a process surviving between the commit and the hand-over to Temporal: an API that
 * committed an event and died before starting its delivery leaves a pending delivery row, and the
 * housekeeping run's sweep starts its workflow once a worker runs.
 */

let stack: TestStack;
let hooks: WebhookReceiver;

beforeAll(async () => {
  stack = await startTestStack({ env: { WEBHOOK_RETRY_INITIAL_MS: '300', WEBHOOK_RETRY_MAX_INTERVAL_MS: '600', WEBHOOK_GIVE_UP_AFTER_MS: '3000' } });
  hooks = await startWebhookReceiver();
});
afterAll(async () => {
  await stack.temporal.workflow.getHandle(housekeepingWorkflowId(stack.taskQueue)).terminate('suite over').catch(() => undefined);
  await hooks.close();
  await stack.stop();
});

test('an event committed just before the API and the worker died is delivered once, after the worker and the sweep are back', async () => {
  const token = stack.token(uniqueName('user'));
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone: '+1 415 555 0100' } })).status).toBe(201);
  const { secret, _id } = await subscribe(stack.api, token, hooks, { events: ['message.scheduled'] });
  await stack.stopWorker();

  const message = await acceptWithoutHandOver(stack, token, { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'PT1H' });

  const [row] = await stack.prisma.webhookDelivery.findMany({ where: { subscriptionId: _id } });
  expect(row).toMatchObject({ status: 'pending', handedOverAt: null, attempts: 0 });
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(hooks.requests).toHaveLength(0);

  await stack.startWorker();
  await ensureHousekeeping(stack.temporal, stack.taskQueue, { sweepEveryMs: 500, sweepGraceMs: 0 });
  const [request] = await receivedEvents(hooks, 1);
  const event = verified(secret, request);
  expect(event).toMatchObject({ type: 'message.scheduled', data: { _id: message.body._id, status: 'scheduled', reason: 'api' } });
  expect(request.headers['webhook-id']).toBe(event.id);

  const handed = await eventually(async () => {
    const current = await stack.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: row.id } });
    return current.status === 'delivered' ? current : undefined;
  });
  expect(handed.handedOverAt).toEqual(expect.any(Date));
  // Later sweeps (about three, one every 500 ms) find nothing to hand over: still one delivery.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(hooks.requests).toHaveLength(1);
  expect(handed.attempts).toBe(1);
});

test('a receiver that keeps failing gets retries until WEBHOOK_GIVE_UP_AFTER_MS, then the delivery is abandoned with its last answer', async () => {
  const failing = await startWebhookReceiver();
  try {
    failing.respond = () => 503;
    const token = stack.token(uniqueName('user'));
    const { _id } = await subscribe(stack.api, token, failing, { events: ['message.scheduled'] });
    await stack.api('POST', '/messages', { token, body: { message_type: 'text', client_phone: '+14155550100', text_message: 'Hi', delay: 'PT1H' } });
    const [delivery] = await eventually(async () => {
      const listed = (await stack.api('GET', `/webhooks/${_id}/deliveries`, { token })).body.deliveries;
      return listed[0]?.status === 'abandoned' ? listed : undefined;
    });
    expect(delivery).toMatchObject({ last_status_code: 503, last_error: 'Gave up retrying: Receiver answered 503 Service Unavailable', next_attempt_at: null });
    expect(delivery.attempts).toBeGreaterThanOrEqual(3);
    expect(failing.requests).toHaveLength(delivery.attempts);
    const first = failing.requests[0].receivedAt;
    // The last attempt starts before WEBHOOK_GIVE_UP_AFTER_MS (3 s), with a second's margin.
    expect(failing.requests[failing.requests.length - 1].receivedAt - first).toBeLessThan(4000);
    expect(new Set(failing.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  } finally {
    await failing.close();
  }
});

test('the sweep deletes events past EVENT_RETENTION_DAYS that no delivery waits on; the feed goes on from its cursors', async () => {
  const token = stack.token(uniqueName('retention-user'));
  const hook = await subscribe(stack.api, token, hooks);
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone: '+14155550100' } })).status).toBe(201);
  const message = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'later', delay: '1h' } });
  expect((await stack.api('POST', `/messages/${message.body._id}/cancel`, { token })).status).toBe(200);
  const before = (await stack.api('GET', '/events', { token })).body;
  expect(before.events.map((e: { type: string }) => e.type)).toEqual(['message.scheduled', 'message.canceled']);
  const [scheduled, canceled] = before.events as { id: string }[];
  const cursorAfterScheduled = (await stack.api('GET', '/events?limit=1', { token })).body.next_cursor;

  // Once both were delivered: both are 100 days old, and a delivery still waits on the second one.
  await eventually(async () => {
    const { deliveries } = (await stack.api('GET', `/webhooks/${hook._id}/deliveries`, { token })).body;
    return deliveries.length === 2 && deliveries.every((d: { status: string }) => d.status === 'delivered');
  });
  // The delivery waits before the events age: another suite's sweep in between must not find the second one deletable.
  await stack.prisma.$executeRaw`UPDATE webhook_deliveries SET status = 'pending' WHERE event_id = ${canceled.id}::uuid`;
  await stack.prisma.$executeRaw`UPDATE events SET created_at = now() - interval '100 days' WHERE id IN (${scheduled.id}::uuid, ${canceled.id}::uuid)`;
  const sweep = createWebhookActivities({ prisma: stack.prisma, temporal: stack.temporal, secrets: stack.services.secrets, taskQueue: uniqueName('no-worker'), webhooks: { ...webhookSettingsOf(loadConfig({})), sweepGraceMs: 3_600_000 } });
  const result = (await new MockActivityEnvironment().run(sweep.handOverPendingDeliveries, {})) as { expiredEvents?: number };
  // Another suite's sweep (they share the database) may have deleted it first: the count is anyone's, the outcome is checked below.
  expect(result.expiredEvents).toEqual(expect.any(Number));

  expect((await stack.api('GET', '/events', { token })).body.events.map((e: { id: string }) => e.id)).toEqual([canceled.id]);
  expect((await stack.api('GET', `/events?after=${cursorAfterScheduled}`, { token })).body.events.map((e: { id: string }) => e.id)).toEqual([canceled.id]);
  expect((await stack.api('GET', `/webhooks/${hook._id}/deliveries`, { token })).body.deliveries.map((d: { event: { id: string } }) => d.event.id)).toEqual([canceled.id]);
});
