import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createWebhookProvider } from '../../src/activities/providers/webhook';
import type { Prisma } from '../../src/db/prisma';
import { MAX_TIMER_CHUNK_MS, messageChangedSignal, messageWorkflowId, sendMessageStateQuery, taskQueuesOf } from '../../src/domain';
import { acceptMessage } from '../../src/use-cases/messages/accept';
import { parseMessageRequest } from '../../src/use-cases/messages/request';
import { openTimeSkipping, uniqueName } from '../support/helpers';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { testSecretBox } from '../support/secrets';
import { runFailure } from '../support/message-run';

/*
 * Delays of months and years on the time-skipping test server, with the real activities, the real
 * database and a real webhook receiver: only the clock of the timers is skipped.
 */
let env: TestWorkflowEnvironment;
let prisma: Prisma;
let close: () => Promise<void>;
let receiver: WebhookReceiver;
const business = uniqueName('skip');
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  ({ env, prisma, close } = await openTimeSkipping());
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await close?.();
  await receiver?.close();
});

async function storedMessage(sendAt: Date) {
  const id = randomUUID();
  await prisma.message.create({
    data: { id, business, ownerId: 'u1', messageType: 'text', phone: '+14155550123', text: 'Far future', sendAt, workflowId: messageWorkflowId(business, id) },
  });
  return { id, input: { business, messageId: id, sendAt: sendAt.toISOString() } };
}

async function withWorker<T>(body: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `msg-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: createActivities({ prisma, secrets: testSecretBox(), provider: createWebhookProvider({ url: receiver.url }), temporal: env.client, taskQueue }),
  });
  return worker.runUntil(body(taskQueue));
}

test.each([
  ['70 days', 70 * DAY],
  ['ten years (the longest delay)', 3653 * DAY],
])('a delay of %s sleeps in bounded chunks, continues as new between them, and sends once at send_at', async (_name, delayMs) => {
  const sendAt = new Date((await env.currentTimeMs()) + delayMs);
  const { id, input } = await storedMessage(sendAt);
  await withWorker(async (taskQueue) => {
    const handle = await env.client.workflow.start('sendMessage', { workflowId: messageWorkflowId(business, id), taskQueue, args: [input] });
    expect(await handle.result()).toEqual({ outcome: 'sent' });
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(sendAt.getTime());
    const description = await handle.describe();
    expect(description.runId).not.toBe(handle.firstExecutionRunId);
  });
  expect(delayMs).toBeGreaterThan(MAX_TIMER_CHUNK_MS);
  expect(receiver.requestsFor(id)).toHaveLength(1);
  expect(await prisma.message.findUnique({ where: { id } })).toEqual(expect.objectContaining({ status: 'sent', attempts: 1 }));
});

test('a cancel signal wakes a long sleep, and the canceled message is never sent', async () => {
  const sendAt = new Date((await env.currentTimeMs()) + 400 * DAY);
  const { id, input } = await storedMessage(sendAt);
  await withWorker(async (taskQueue) => {
    const handle = await env.client.workflow.start('sendMessage', { workflowId: messageWorkflowId(business, id), taskQueue, args: [input] });
    const state = await handle.query(sendMessageStateQuery);
    expect(state).toEqual({ phase: 'waiting', sendAt: sendAt.toISOString(), nextWakeAt: expect.any(String) });
    expect(Date.parse(state.nextWakeAt!)).toBeLessThan(sendAt.getTime());

    // A signal without a change in the row does not end the wait.
    await handle.signal(messageChangedSignal);
    expect((await handle.query(sendMessageStateQuery)).phase).toBe('waiting');

    await prisma.message.update({ where: { id }, data: { status: 'canceled', canceledAt: new Date() } });
    await handle.signal(messageChangedSignal);
    expect(await handle.result()).toEqual({ outcome: 'canceled' });
  });
  expect(receiver.requestsFor(id)).toEqual([]);
  expect((await prisma.message.findUnique({ where: { id } }))!.status).toBe('canceled');
});

test.each([
  ['hours past send_at', 5 * 60 * 60 * 1000],
  ['past a timer chunk (continued as new with its deferral)', MAX_TIMER_CHUNK_MS + DAY],
])('a message its send window deferred %s waits on its timer until deferred_until, then sends once', async (_name, deferMs) => {
  const now = await env.currentTimeMs();
  const { id, input } = await storedMessage(new Date(now));
  const deferredUntil = new Date(now + deferMs).toISOString();
  await prisma.message.update({ where: { id }, data: { deferredUntil: new Date(deferredUntil) } });
  await withWorker(async (taskQueue) => {
    const handle = await env.client.workflow.start('sendMessage', {
      workflowId: messageWorkflowId(business, id),
      taskQueue,
      args: [{ ...input, deferredUntil }],
    });
    const state = await handle.query(sendMessageStateQuery);
    expect(state).toEqual({ phase: 'waiting', sendAt: input.sendAt, deferredUntil, nextWakeAt: expect.any(String) });
    expect(Date.parse(state.nextWakeAt!)).toBeGreaterThan(Date.parse(input.sendAt));
    expect(Date.parse(state.nextWakeAt!)).toBeLessThanOrEqual(Date.parse(deferredUntil));
    expect(receiver.requestsFor(id)).toEqual([]);
    expect(await handle.result()).toEqual({ outcome: 'sent' });
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(Date.parse(deferredUntil));
  });
  expect(receiver.requestsFor(id)).toHaveLength(1);
  expect(await prisma.message.findUnique({ where: { id } })).toEqual(
    expect.objectContaining({ status: 'sent', sendAt: new Date(input.sendAt), deferredUntil: new Date(deferredUntil) }),
  );
});

/** 07:00 UTC of the second Sunday of March of the first year whose one is more than a day ahead: New York's spring-forward (02:00 EST → 03:00 EDT). */
function nextNewYorkSpringForward(now: number): number {
  for (let year = new Date(now).getUTCFullYear(); ; year++) {
    const day = [8, 9, 10, 11, 12, 13, 14].find((d) => new Date(Date.UTC(year, 2, d)).getUTCDay() === 0)!;
    const change = Date.UTC(year, 2, day, 7);
    if (change > now + DAY) return change;
  }
}

test('accepted for 01:30 before a spring-forward with a window from 02:30, a time the clock skips: it goes out at the change, once', async () => {
  const now = await env.currentTimeMs();
  const change = nextNewYorkSpringForward(now);
  const due = change - 30 * 60 * 1000; // 01:30 EST
  const body = {
    message_type: 'text',
    client_phone: '+14155550123',
    text_message: 'After the change',
    delay: String(Math.round((due - now) / 1000)),
    send_window: { from: '02:30', to: '05:00', timezone: 'America/New_York' },
  };
  const request = await parseMessageRequest(body, async () => null, new Date(now));
  expect(request.deferredUntil?.getTime()).toBe(change);

  const taskQueue = `msg-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: taskQueuesOf(taskQueue).messages,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: createActivities({ prisma, secrets: testSecretBox(), provider: createWebhookProvider({ url: receiver.url }), temporal: env.client, taskQueue }),
  });
  await worker.runUntil(async () => {
    const { message } = await acceptMessage({ prisma, temporal: env.client, taskQueue }, { business, ownerId: 'u1' }, request, null);
    expect(message).toEqual(expect.objectContaining({ sendAt: request.sendAt, deferredUntil: new Date(change) }));
    const handle = env.client.workflow.getHandle(message.workflowId!);
    expect(await handle.result()).toEqual({ outcome: 'sent' });
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(change);
    expect(receiver.requestsFor(message.id)).toHaveLength(1);
    expect(await prisma.message.findUnique({ where: { id: message.id } })).toEqual(
      expect.objectContaining({ status: 'sent', sendAt: request.sendAt, deferredUntil: new Date(change) }),
    );
  });
});

test('a message canceled in the database without a signal is still not sent when its time comes', async () => {
  const sendAt = new Date((await env.currentTimeMs()) + 45 * DAY);
  const { id, input } = await storedMessage(sendAt);
  await prisma.message.update({ where: { id }, data: { status: 'canceled', canceledAt: new Date() } });
  await withWorker(async (taskQueue) => {
    const handle = await env.client.workflow.start('sendMessage', { workflowId: messageWorkflowId(business, id), taskQueue, args: [input] });
    expect(await handle.result()).toEqual({ outcome: 'canceled' });
  });
  expect(receiver.requestsFor(id)).toEqual([]);
});

test('a receiver that stays unavailable: retries stop after an hour and the message is recorded failed with the last answer', async () => {
  receiver.respond = () => 503;
  try {
    const { id, input } = await storedMessage(new Date(await env.currentTimeMs()));
    await withWorker(async (taskQueue) => {
      const handle = await env.client.workflow.start('sendMessage', { workflowId: messageWorkflowId(business, id), taskQueue, args: [input] });
      expect(await runFailure(handle)).toMatchObject({ type: 'MessageFailed', nonRetryable: true });
    });
    const message = (await prisma.message.findUnique({ where: { id } }))!;
    expect(message.status).toBe('failed');
    expect(message.error).toBe('Gave up retrying: Webhook answered 503 Service Unavailable');
    expect(message.attempts).toBeGreaterThan(3);
    expect(new Set(receiver.requestsFor(id).map((r) => r.headers['idempotency-key']))).toEqual(new Set([id]));
  } finally {
    receiver.respond = () => 200;
  }
});
