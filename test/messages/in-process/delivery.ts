import { createHmac, timingSafeEqual } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { createWebhookProvider, SIGNATURE_HEADER } from '../../../src/activities/providers/webhook';
import { startTestStack, type ApiResponse, type TestStack } from '../../support/stack';
import { waitForStatus as waitForMessageStatus, REQUEST_INSTANCE } from '../../support/helpers';
import { temporalTextOf } from '../../support/history';
import { runFailure } from '../../support/message-run';
import { startWebhookReceiver, type Answer, type ReceivedRequest, type WebhookReceiver } from '../../support/webhook-receiver';

/**
 * Sending through the `webhook` provider to a real local HTTP receiver: the body, the
 * Idempotency-Key and the signature, delays, cancel, retries, rejections and repeated keys.
 * "Nothing more arrives" is read once the message's run has closed: a closed run sends nothing, and its
 * id is never started again.
 *
 * Each test owns its messages (its own text, so its own scripted answer) and reads only their requests:
 * they run side by side (`test.concurrent`, docs/design.md "Suite: concurrent tests inside a file"). The
 * burst of one key, six starts at once, fills the API's message places alone; the replay counts every
 * request the receiver got: both run on their own, after the others.
 */
const SECRET = 'whsec-test-0123456789abcdef';
const PHONE = '+14155550123';

let stack: TestStack;
let receiver: WebhookReceiver;
let token: string;
/** Per-test answers of the receiver, by message text; everything else is accepted. */
const answers = new Map<string, (request: Omit<ReceivedRequest, 'status'>) => Answer>();

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.respond = (request) => answers.get(request.body?.text)?.(request) ?? { status: 200, body: JSON.stringify({ id: `rcv-${request.body?.id}` }) };
  stack = await startTestStack({ provider: createWebhookProvider({ url: receiver.url, secret: SECRET, timeoutMs: 5000 }) });
  token = stack.token('alice');
  await stack.api('POST', '/clients', { token, body: { _id: 'c-1', name: 'Ada', phone: PHONE } });
});
afterAll(async () => {
  await stack.stop();
  await receiver.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function send(body: Record<string, unknown>, headers: Record<string, string> = {}, as = token): Promise<ApiResponse> {
  const res = await stack.api('POST', '/messages', { token: as, body: { message_type: 'text', ...body }, headers });
  if (res.status !== 202) throw new Error(`send answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}

const getMessage = async (id: string) => (await stack.api('GET', `/messages/${id}`, { token })).body;

const waitForStatus = (id: string, status: string) => waitForMessageStatus(stack.api, token, id, status);

/** Recomputes the signature a receiver checks: HMAC-SHA256 over "<t>.<raw body>". */
function signatureIsValid(request: ReceivedRequest): boolean {
  const header = String(request.headers[SIGNATURE_HEADER.toLowerCase()] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', SECRET).update(`${match[1]}.${request.rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex')) && Math.abs(Date.now() / 1000 - Number(match[1])) < 300;
}

/** The answer is exactly `problem`, as application/problem+json, naming its request. */
function expectProblemDocument(res: ApiResponse, problem: { type: string; title: string; status: number; detail: string }): void {
  expect(res.status).toBe(problem.status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual({ ...problem, instance: REQUEST_INSTANCE });
}

test.concurrent('an immediate message arrives once, with the contract body, its Idempotency-Key and a valid signature', async () => {
  const res = await send({ client: 'c-1', text_message: 'Hello now' });
  const id = res.body._id;
  const sent = await waitForStatus(id, 'sent');
  const [delivery, ...others] = receiver.requestsFor(id);
  expect(others).toEqual([]);
  expect(delivery.method).toBe('POST');
  expect(delivery.headers['content-type']).toBe('application/json');
  expect(delivery.headers['idempotency-key']).toBe(id);
  expect(signatureIsValid(delivery)).toBe(true);
  expect(delivery.body).toEqual({
    id,
    business: stack.business,
    client: 'c-1',
    to: PHONE,
    name: 'Ada',
    text: 'Hello now',
    sent_at: sent.dispatched_at,
  });
  expect(Object.keys(delivery.body)).toEqual(['id', 'business', 'client', 'to', 'name', 'text', 'sent_at']);
  expect(sent).toEqual(expect.objectContaining({ attempts: 1, provider: 'webhook', provider_ref: `rcv-${id}`, error: null }));
});

test.concurrent('a signature made with another secret does not verify', async () => {
  const res = await send({ client_phone: PHONE, text_message: 'Tamper check' });
  await waitForStatus(res.body._id, 'sent');
  const [delivery] = receiver.requestsFor(res.body._id);
  expect(signatureIsValid({ ...delivery, rawBody: delivery.rawBody.replace('Tamper check', 'Tampered') })).toBe(false);
});

test.concurrent('a delayed message does not arrive before send_at, then arrives exactly once', async () => {
  const res = await send({ client_phone: PHONE, text_message: 'Delayed two seconds', delay: '2' });
  const id = res.body._id;
  const sendAt = Date.parse(res.body.send_at);
  expect((await getMessage(id)).status).toBe('scheduled');
  await sleep(Math.max(0, sendAt - Date.now() - 1000));
  expect(receiver.requestsFor(id)).toEqual([]);
  expect((await getMessage(id)).status).toBe('scheduled');

  await waitForStatus(id, 'sent');
  const deliveries = receiver.requestsFor(id);
  expect(deliveries).toHaveLength(1);
  expect(deliveries[0].receivedAt).toBeGreaterThanOrEqual(sendAt);
  await stack.temporal.workflow.getHandle(res.body.workflow_id).result();
  expect(receiver.requestsFor(id)).toHaveLength(1);
});

test.concurrent('cancel before sending: 200 canceled, nothing arrives, the workflow ends; a second cancel answers the same', async () => {
  const res = await send({ client_phone: PHONE, text_message: 'Canceled before sending', delay: '4s' });
  const id = res.body._id;
  const canceled = await stack.api('POST', `/messages/${id}/cancel`, { token });
  expect(canceled.status).toBe(200);
  expect(canceled.body).toEqual(expect.objectContaining({ _id: id, status: 'canceled', canceled_at: expect.any(String), canceled_by: { actor: 'user', reason: 'api' } }));

  const handle = stack.temporal.workflow.getHandle(res.body.workflow_id);
  await expect(handle.result()).rejects.toThrow('Workflow execution cancelled');
  expect((await handle.describe()).status.name).toBe('CANCELLED');
  expect(receiver.requestsFor(id)).toEqual([]);
  expect((await getMessage(id)).status).toBe('canceled');

  const again = await stack.api('POST', `/messages/${id}/cancel`, { token });
  expect(again.status).toBe(200);
  expect(again.body).toEqual(canceled.body);
});

test.concurrent('cancel after sending → 409, and the message stays sent', async () => {
  const res = await send({ client_phone: PHONE, text_message: 'Too late to cancel' });
  const id = res.body._id;
  await waitForStatus(id, 'sent');
  const cancel = await stack.api('POST', `/messages/${id}/cancel`, { token });
  expectProblemDocument(cancel, { type: '/problems/conflict', title: 'Conflict', status: 409, detail: `Message ${id} can no longer be canceled: it is sent` });
  expect((await getMessage(id)).status).toBe('sent');
});

test.concurrent('a receiver failing twice with 503 then accepting: one delivery, the same key and body every time', async () => {
  answers.set('Retry me', (request) => (request.attempt <= 2 ? 503 : 200));
  const res = await send({ client_phone: PHONE, text_message: 'Retry me' });
  const id = res.body._id;
  const sent = await waitForStatus(id, 'sent');
  const requests = receiver.requestsFor(id);
  expect(requests.map((r) => r.status)).toEqual([503, 503, 200]);
  expect(receiver.deliveriesFor(id)).toHaveLength(1);
  expect(new Set(requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([id]));
  expect(new Set(requests.map((r) => r.rawBody)).size).toBe(1);
  expect(requests.every(signatureIsValid)).toBe(true);
  expect(sent).toEqual(expect.objectContaining({ attempts: 3, error: null }));
});

test.concurrent('a receiver answering 503 with Retry-After: 2 is not tried again before those 2 seconds', async () => {
  answers.set('Come back later', (request) => (request.attempt === 1 ? { status: 503, headers: { 'Retry-After': '2' } } : 200));
  const res = await send({ client_phone: PHONE, text_message: 'Come back later' });
  await waitForStatus(res.body._id, 'sent');
  const [first, second] = receiver.requestsFor(res.body._id);
  expect([first.status, second.status]).toEqual([503, 200]);
  expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(2000);
  expect(receiver.deliveriesFor(res.body._id)).toHaveLength(1);
});

test.concurrent('429 and a dropped connection are retried too', async () => {
  answers.set('Slow down', (request) => (request.attempt === 1 ? 429 : 200));
  answers.set('Hang up', (request) => (request.attempt === 1 ? 'drop' : 200));
  const throttled = await send({ client_phone: PHONE, text_message: 'Slow down' });
  const dropped = await send({ client_phone: PHONE, text_message: 'Hang up' });
  await waitForStatus(throttled.body._id, 'sent');
  await waitForStatus(dropped.body._id, 'sent');
  expect(receiver.requestsFor(throttled.body._id).map((r) => r.status)).toEqual([429, 200]);
  expect(receiver.requestsFor(dropped.body._id).map((r) => r.status)).toEqual([0, 200]);
});

test.concurrent('a receiver answering 400: the message fails after exactly one attempt, with the reason', async () => {
  answers.set('Reject me', () => 400);
  const res = await send({ client_phone: PHONE, text_message: 'Reject me' });
  const id = res.body._id;
  const failed = await waitForStatus(id, 'failed');
  expect(failed.attempts).toBe(1);
  expect(failed.error).toMatch(/^Webhook answered 400/);
  expect(failed.sent_at).toBeNull();
  expect(await runFailure(stack.temporal.workflow.getHandle(res.body.workflow_id))).toMatchObject({ type: 'MessageFailed', message: `Message ${id} failed: ${failed.error}` });
  expect(receiver.requestsFor(id)).toHaveLength(1);
  expect((await stack.api('POST', `/messages/${id}/cancel`, { token })).status).toBe(409);
});

test.concurrent('a receiver answering 422 with the request echoed: the message, its history and the failure keep the status, never the body', async () => {
  const text = 'Echo me: results of the blood test';
  answers.set(text, (request) => ({ status: 422, body: JSON.stringify({ error: 'invalid', received: request.body }) }));
  const res = await send({ client: 'c-1', text_message: text });
  const failed = await waitForStatus(res.body._id, 'failed');
  expect(failed.error).toBe('Webhook answered 422 Unprocessable Entity');
  // The run ends Failed with the status only; its history is read once it has.
  expect((await runFailure(stack.temporal.workflow.getHandle(res.body.workflow_id))).message).toBe(`Message ${res.body._id} failed: Webhook answered 422 Unprocessable Entity`);
  const inTemporal = await temporalTextOf(stack.temporal, res.body.workflow_id);
  expect(inTemporal).toContain('Webhook answered 422 Unprocessable Entity');
  for (const personal of [PHONE, 'Ada', text, 'invalid']) expect(inTemporal).not.toContain(personal);
});

describe('Idempotency-Key', () => {
  test.concurrent('the same key and body returns the first message and sends once, however the body is spelled', async () => {
    const headers = { 'Idempotency-Key': 'order-42-confirmation' };
    const first = await send({ client_phone: PHONE, text_message: 'Order 42 confirmed', delay: '2s' }, headers);
    const again = await send({ client_phone: '+1 415-555-0123', text_message: 'Order 42 confirmed', delay: 'PT2S' }, headers);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));

    await waitForStatus(first.body._id, 'sent');
    const late = await send({ client_phone: PHONE, text_message: 'Order 42 confirmed', delay: '2' }, headers);
    expect(late.body).toEqual({ ...first.body, status: 'sent' });
    await stack.temporal.workflow.getHandle(first.body.workflow_id).result();
    expect(receiver.requestsFor(first.body._id)).toHaveLength(1);
    expect(await stack.prisma.message.count({ where: { business: stack.business, idempotencyKey: 'order-42-confirmation' } })).toBe(1);
  });

  test.concurrent('the same key with another body → 422, and nothing new is stored or sent', async () => {
    const headers = { 'Idempotency-Key': 'order-43' };
    const first = await send({ client_phone: PHONE, text_message: 'Order 43 shipped' }, headers);
    const other = await stack.api('POST', '/messages', {
      token,
      headers,
      body: { message_type: 'text', client_phone: PHONE, text_message: 'Order 43 canceled' },
    });
    expectProblemDocument(other, { type: '/problems/idempotency-key-reused', title: 'Unprocessable Entity', status: 422, detail: 'Idempotency-Key was already used with a different request' });
    await waitForStatus(first.body._id, 'sent');
    expect(await stack.prisma.message.count({ where: { business: stack.business, idempotencyKey: 'order-43' } })).toBe(1);
    expect(receiver.requests.filter((r) => r.body?.text === 'Order 43 canceled')).toEqual([]);
  });

  test.concurrent('a key belongs to its user: another user with the same key gets a message of their own', async () => {
    const headers = { 'Idempotency-Key': 'shared-key' };
    const mine = await send({ client_phone: PHONE, text_message: 'Same key, two users' }, headers);
    const theirs = await send({ client_phone: PHONE, text_message: 'Same key, two users' }, headers, stack.token('bob'));
    expect(theirs.body._id).not.toBe(mine.body._id);
  });

  test('concurrent requests with one key create one message and one delivery', async () => {
    const headers = { 'Idempotency-Key': 'burst-1' };
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => send({ client_phone: PHONE, text_message: 'Burst of retries' }, headers)),
    );
    const ids = new Set(responses.map((r) => r.body._id));
    expect(ids.size).toBe(1);
    const [id] = ids;
    await waitForStatus(id, 'sent');
    await stack.temporal.workflow.getHandle(responses[0].body.workflow_id).result();
    expect(receiver.requestsFor(id)).toHaveLength(1);
    expect(await stack.prisma.message.count({ where: { business: stack.business, idempotencyKey: 'burst-1' } })).toBe(1);
  });
});

test('replaying the history of a sent message is deterministic and sends nothing', async () => {
  const res = await send({ client_phone: PHONE, text_message: 'Replay me', delay: '1' });
  await waitForStatus(res.body._id, 'sent');
  const handle = stack.temporal.workflow.getHandle(res.body.workflow_id);
  await handle.result();
  const before = receiver.requests.length;
  await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, await handle.fetchHistory(), res.body.workflow_id);
  expect(receiver.requests.length).toBe(before);
  expect(receiver.requestsFor(res.body._id)).toHaveLength(1);
});
