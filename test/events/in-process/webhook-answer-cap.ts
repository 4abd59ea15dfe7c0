import { createWebhookProvider } from '../../../src/activities/providers/webhook';
import { postWebhook } from '../../../src/activities/webhooks/post';
import { WEBHOOK_ANSWER_MAX_BYTES } from '../../../src/net/capped-body';
import { outboundNetwork } from '../../../src/net/outbound';
import { startEndlessAnswer, type EndlessAnswer } from '../../support/endless-answer';
import { eventually } from '../../support/helpers';
import { startTestStack, uniqueName, type TestStack } from '../../support/stack';

/*
 * A receiver that answers 200 and streams its body as fast as it is read (issue 48: 12 deliveries pulled
 * 5 GB into the worker). Its status is all that counts: the worker reads WEBHOOK_ANSWER_MAX_BYTES at most
 * and closes the connection, and the delivery is delivered. What the receiver managed to write is bounded
 * by that cap plus the sockets' buffers (a few MB on loopback), never by its patience.
 */

/** The cap plus what the kernel's socket buffers and the writer's own buffer can hold between the two ends. */
const BUFFERS = 16 * 1024 * 1024;

let stack: TestStack;
let endless: EndlessAnswer;
beforeAll(async () => {
  [stack, endless] = await Promise.all([startTestStack(), startEndlessAnswer()]);
});
afterAll(async () => {
  await endless?.close();
  await stack?.stop();
});

test('an event webhook whose receiver streams an endless 200 is delivered, and the worker stops reading at the cap', async () => {
  const before = endless.bytesSent;
  const closed = endless.nextClose();
  const answer = await postWebhook(`${endless.url}/hook`, {}, '{}', 20_000, { network: outboundNetwork({ publicOnly: false }) });
  expect(answer).toEqual({ kind: 'delivered', statusCode: 200 });
  await closed;
  expect(endless.bytesSent - before).toBeLessThan(WEBHOOK_ANSWER_MAX_BYTES + BUFFERS);
});

test('the webhook provider delivers a message whose receiver streams an endless 200, without a reference, and closes the connection', async () => {
  const before = endless.bytesSent;
  const closed = endless.nextClose();
  const provider = createWebhookProvider({ url: `${endless.url}/messages`, timeoutMs: 20_000 });
  const sent = await provider.deliver({ id: '00000000-0000-4000-8000-000000000048', business: 'acme', client: null, to: '+14155550123', name: null, text: 'Hi', dispatchedAt: new Date('2026-01-01T00:00:00.000Z'), channel: 'sms' as const, media: [] });
  expect(sent).toEqual({ providerRef: undefined });
  await closed;
  expect(endless.bytesSent - before).toBeLessThan(WEBHOOK_ANSWER_MAX_BYTES + BUFFERS);
});

test('end to end: the delivery to a receiver streaming an endless 200 is recorded delivered, after one attempt', async () => {
  const token = stack.token(uniqueName('user'));
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', name: 'Ada Lovelace', phone: '+1 415 555 0100' } })).status).toBe(201);
  const subscription = await stack.api('POST', '/webhooks', { token, body: { url: `${endless.url}/events`, events: ['message.scheduled'] } });
  expect(subscription.status).toBe(201);
  const requestsBefore = endless.requests;
  const before = endless.bytesSent;
  expect((await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'Hi', delay: 'PT1H' } })).status).toBe(202);

  const deliveries = await eventually(async () => {
    const listed = (await stack.api('GET', `/webhooks/${subscription.body._id}/deliveries`, { token })).body.deliveries;
    return listed[0]?.status === 'delivered' ? listed : undefined;
  });
  expect(deliveries).toEqual([expect.objectContaining({ status: 'delivered', attempts: 1, last_status_code: 200, last_error: null })]);
  expect(endless.requests - requestsBefore).toBe(1);
  await eventually(async () => (endless.closed >= endless.requests ? true : undefined));
  expect(endless.bytesSent - before).toBeLessThan(WEBHOOK_ANSWER_MAX_BYTES + BUFFERS);
});
