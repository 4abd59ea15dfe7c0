import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { createProvider, type MessageHandOff } from '../../src/activities/providers';
import { createWebhookProvider, SIGNATURE_HEADER, webhookSignature } from '../../src/activities/providers/webhook';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from '../../src/retry-after';
import { loadConfig } from '../../src/config/index';
import { createPrisma } from '../../src/db/prisma';
import { startWebhookReceiver, type Answer, type WebhookReceiver } from '../support/webhook-receiver';

/** How the webhook provider classifies each answer of a real HTTP receiver. */
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

let counter = 0;
const message = (): MessageHandOff => ({
  id: `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`,
  business: 'acme',
  client: null,
  to: '+14155550123',
  name: null,
  text: 'Hi',
  dispatchedAt: new Date('2026-01-01T00:00:00.000Z'), channel: 'sms' as const, media: [],
});

async function outcomeOf(answer: Answer, timeoutMs = 5000) {
  receiver.respond = () => answer;
  try {
    return { value: await createWebhookProvider({ url: receiver.url, timeoutMs }).deliver(message()) };
  } catch (error) {
    return { error: error as Error };
  }
}

test('2xx is a delivery; a JSON id in the answer becomes the provider reference', async () => {
  expect(await outcomeOf({ status: 200, body: '{"id":"rcv-1"}' })).toEqual({ value: { providerRef: 'rcv-1' } });
  expect(await outcomeOf(204)).toEqual({ value: { providerRef: undefined } });
  expect(await outcomeOf({ status: 202, body: 'accepted' })).toEqual({ value: { providerRef: undefined } });
});

test.each([500, 502, 503, 504, 429, 408])('%i is transient: a plain error, so the activity retries it', async (status) => {
  const { error } = await outcomeOf(status);
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(ApplicationFailure);
  expect(error!.message).toMatch(new RegExp(`^Webhook answered ${status} [A-Z]`));
});

test.each([
  [400, 'Bad Request'],
  [401, 'Unauthorized'],
  [403, 'Forbidden'],
  [404, 'Not Found'],
  [410, 'Gone'],
  [422, 'Unprocessable Entity'],
  [302, 'Found'],
])('%i is a rejection: a non-retryable ProviderRejected failure naming the status only', async (status, reason) => {
  const { error } = await outcomeOf({ status, body: '{"error":"bad number"}' });
  expect(error).toBeInstanceOf(ApplicationFailure);
  expect(error).toEqual(expect.objectContaining({ type: 'ProviderRejected', nonRetryable: true }));
  expect(error!.message).toBe(`Webhook answered ${status} ${reason}`);
});

test.each([400, 422, 503])('a receiver that echoes the request in its %i answer: the error keeps the status, never the body', async (status) => {
  receiver.respond = (request) => ({ status, body: JSON.stringify({ error: 'rejected', request: request.body }), headers: { 'x-echo': request.rawBody.slice(0, 100) } });
  const sent = { ...message(), to: '+14155550187', name: 'Grace Hopper', text: 'Your test results are ready' };
  const error = await createWebhookProvider({ url: receiver.url }).deliver(sent).catch((e: Error) => e);
  expect((error as Error).message).toMatch(new RegExp(`^Webhook answered ${status} [A-Z][A-Za-z ]+$`));
  for (const personal of [sent.to, sent.name, sent.text, 'rejected']) expect(JSON.stringify(error)).not.toContain(personal);
});

test('a receiver that does not answer in time is transient', async () => {
  const { error } = await outcomeOf({ status: 200, delayMs: 1500 }, 200);
  expect(error).not.toBeInstanceOf(ApplicationFailure);
  expect(error!.message).toBe('Webhook unreachable: no answer within 200 ms');
});

test('a refused connection is transient', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve));
  const error = await createWebhookProvider({ url: `http://127.0.0.1:${port}/` }).deliver(message()).catch((e: Error) => e);
  expect(error).not.toBeInstanceOf(ApplicationFailure);
  expect((error as Error).message).toBe('Webhook unreachable: ECONNREFUSED');
});

test('without a secret there is no signature header; with one it is t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">', async () => {
  receiver.respond = () => 200;
  const unsigned = message();
  await createWebhookProvider({ url: receiver.url }).deliver(unsigned);
  expect(receiver.requestsFor(unsigned.id)[0].headers[SIGNATURE_HEADER.toLowerCase()]).toBeUndefined();

  const signed = message();
  await createWebhookProvider({ url: receiver.url, secret: 's3cret' }).deliver(signed);
  const [request] = receiver.requestsFor(signed.id);
  const header = String(request.headers[SIGNATURE_HEADER.toLowerCase()]);
  const t = Number(/^t=(\d+),/.exec(header)![1]);
  expect(header).toBe(webhookSignature('s3cret', t, request.rawBody));
  expect(webhookSignature('s3cret', 1700000000, '{"a":1}')).toBe(
    `t=1700000000,v1=${createHmac('sha256', 's3cret').update('1700000000.{"a":1}').digest('hex')}`,
  );
  expect(request.headers['idempotency-key']).toBe(signed.id);
  // The contract's body: a plain SMS carries no channel, media or template.
  expect(JSON.parse(request.rawBody)).toStrictEqual({ id: signed.id, business: 'acme', client: null, to: '+14155550123', name: null, text: 'Hi', sent_at: '2026-01-01T00:00:00.000Z' });
});

test('MESSAGE_PROVIDER chooses the provider: log by default, webhook with its URL', async () => {
  const prisma = createPrisma('postgresql://unused@127.0.0.1:1/unused', 1);
  expect(createProvider(loadConfig({}), prisma, undefined).name).toBe('log');
  expect(createProvider(loadConfig({ MESSAGE_PROVIDER: 'webhook', MESSAGE_WEBHOOK_URL: receiver.url }), prisma, undefined).name).toBe('webhook');
  expect(() => loadConfig({ MESSAGE_PROVIDER: 'webhook' })).toThrow('MESSAGE_PROVIDER=webhook needs MESSAGE_WEBHOOK_URL');
  await prisma.$disconnect();
});

test('Retry-After is read as seconds or an HTTP date, bounded to ten minutes', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  expect(retryAfterMs('2', now)).toBe(2000);
  expect(retryAfterMs('Tue, 01 Jan 2030 00:00:30 GMT', now)).toBe(30_000);
  expect(retryAfterMs('Mon, 31 Dec 2029 23:00:00 GMT', now)).toBe(0);
  expect(retryAfterMs('86400', now)).toBe(MAX_RETRY_AFTER_MS);
  expect(retryAfterMs('soon', now)).toBeUndefined();
  expect(retryAfterMs(null, now)).toBeUndefined();
});
