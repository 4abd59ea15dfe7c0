import { randomUUID } from 'node:crypto';
import { createWebhookProvider } from '../src/activities/providers/webhook';
import { requestHash } from '../src/api/message-idempotency';
import { parseMessageRequest } from '../src/api/message-request';
import { messageWorkflowId } from '../src/workflows/definitions';
import { eventually, startTestStack, type TestStack } from './support/stack';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

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
const waitForStatus = (id: string, status: string) =>
  eventually(async () => {
    const message = await getMessage(id);
    return message.status === status ? message : undefined;
  }, 60_000);

test('a message whose delay ends while the worker is down is sent once when the worker comes back', async () => {
  const res = await stack.api('POST', '/messages', {
    token,
    body: { message_type: 'text', client_phone: PHONE, text_message: 'Survives a worker restart', delay: '3' },
  });
  expect(res.status).toBe(202);
  const id = res.body._id;
  const sendAt = Date.parse(res.body.send_at);
  await stack.stopWorker();

  await sleep(Math.max(0, sendAt + 2000 - Date.now()));
  expect(receiver.requestsFor(id)).toEqual([]);
  expect((await getMessage(id)).status).toBe('scheduled');

  await stack.startWorker(provider);
  await waitForStatus(id, 'sent');
  await sleep(1500);
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
