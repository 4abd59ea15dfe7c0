import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createWebhookProvider } from '../../../src/activities/providers/webhook';
import { requestHash } from '../../../src/use-cases/messages/idempotency';
import { parseMessageRequest } from '../../../src/use-cases/messages/request';
import { messageWorkflowId } from '../../../src/domain';
import { startTestStack, type TestStack } from '../../support/stack';
import { waitForStatus as waitForMessageStatus } from '../../support/helpers';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';

/** A message survives its worker going away, and a crash between storing it and starting its workflow. */
const PHONE = '+14155550123';

let stack: TestStack;
let receiver: WebhookReceiver;
let token: string;
let provider: ReturnType<typeof createWebhookProvider>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  provider = createWebhookProvider({ url: receiver.url, timeoutMs: 5000 });
  stack = await startTestStack({ provider });
  token = stack.token('alice');
});
afterAll(async () => {
  await stack.stop();
  await receiver.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const getMessage = async (id: string) => (await stack.api('GET', `/messages/${id}`, { token })).body;
const waitForStatus = (id: string, status: string) => waitForMessageStatus(stack.api, token, id, status, 60_000);

test('a message whose delay ends while the worker is down is sent once when the worker comes back', async () => {
  const res = await stack.api('POST', '/messages', {
    token,
    body: { message_type: 'text', client_phone: PHONE, text_message: 'Survives a worker restart', delay: '3' },
  });
  expect(res.status).toBe(202);
  const id = res.body._id;
  const sendAt = Date.parse(res.body.send_at);
  // The worker stops in about 0.1 s, well before the 3 s delay ends; it comes back a second after it.
  await stack.stopWorker();

  await sleep(Math.max(0, sendAt + 1000 - Date.now()));
  expect(receiver.requestsFor(id)).toEqual([]);
  expect((await getMessage(id)).status).toBe('scheduled');

  await stack.startWorker(provider);
  await waitForStatus(id, 'sent');
  await sleep(1000);
  const deliveries = receiver.requestsFor(id);
  expect(deliveries).toHaveLength(1);
  expect(deliveries[0].receivedAt).toBeGreaterThanOrEqual(sendAt);
  await expect(stack.temporal.workflow.getHandle(res.body.workflow_id).result()).resolves.toEqual({ outcome: 'sent' });
});

test('a crash between storing a message and starting its workflow heals when the Idempotency-Key is repeated', async () => {
  const body = { message_type: 'text', client_phone: PHONE, text_message: 'Stored before a crash' };
  const request = await parseMessageRequest(body, async () => null);
  const id = randomUUID();
  // What the API had written when it crashed: the row, but no workflow.
  await stack.prisma.message.create({
    data: {
      id,
      business: stack.business,
      ownerId: 'alice',
      messageType: 'text',
      phone: request.phone,
      text: request.text,
      sendAt: request.sendAt,
      workflowId: messageWorkflowId(stack.business, id),
      idempotencyKey: 'crash-1',
      requestHash: requestHash(request.fingerprint),
    },
  });

  const replay = await stack.api('POST', '/messages', { token, body, headers: { 'Idempotency-Key': 'crash-1' } });
  expect(replay.status).toBe(202);
  expect(replay.body._id).toBe(id);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  await waitForStatus(id, 'sent');

  const again = await stack.api('POST', '/messages', { token, body, headers: { 'Idempotency-Key': 'crash-1' } });
  expect(again.body).toEqual({ ...replay.body, status: 'sent' });
  await sleep(1000);
  expect(receiver.requestsFor(id)).toHaveLength(1);
});

test('when Temporal cannot be reached: 503; without a key the message is marked failed, with a key a repeat heals it', async () => {
  const closed = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  await closed.close();
  const outage = await stack.startApi({ temporal: new Client({ connection: closed }) });
  const unkeyedBody = { message_type: 'text', client_phone: PHONE, text_message: 'During an outage, no key' };
  const keyedBody = { message_type: 'text', client_phone: PHONE, text_message: 'During an outage, with a key' };
  try {
    const post = (body: unknown, headers: Record<string, string> = {}) => outage.api('POST', '/messages', { token, body, headers });
    const unkeyed = await post(unkeyedBody);
    expect(unkeyed.status).toBe(503);
    expect(unkeyed.body.detail).toBe('The message could not be scheduled and will not be sent: try again');
    const keyed = await post(keyedBody, { 'Idempotency-Key': 'outage-1' });
    expect(keyed.status).toBe(503);
    expect(keyed.body.detail).toBe('The message is stored but not scheduled yet: repeat the request with the same Idempotency-Key');
  } finally {
    await outage.stop();
  }
  const abandoned = await stack.prisma.message.findFirstOrThrow({ where: { business: stack.business, text: unkeyedBody.text_message } });
  expect(abandoned).toEqual(expect.objectContaining({ status: 'failed', error: 'Could not be scheduled' }));

  const healed = await stack.api('POST', '/messages', { token, body: keyedBody, headers: { 'Idempotency-Key': 'outage-1' } });
  expect(healed.status).toBe(202);
  await waitForStatus(healed.body._id, 'sent');
  expect(receiver.requestsFor(healed.body._id)).toHaveLength(1);
  expect(receiver.requestsFor(abandoned.id)).toEqual([]);
});
