import { get } from 'node:http';
import { ApplicationFailure } from '@temporalio/common';
import { fetch } from 'undici';
import { createProvider, type MessageHandOff } from '../../../src/activities/providers';
import { createWebhookProvider } from '../../../src/activities/providers/webhook';
import { postWebhook } from '../../../src/activities/webhooks/post';
import { loadConfig } from '../../../src/config/index';
import { isNonPublicAddressRefusal, outboundNetwork, outboundNetworksOf } from '../../../src/net/outbound';
import type { HostLookup } from '../../../src/net/public-address';
import { startCountingListener, type CountingListener } from '../../support/counting-listener';
import { eventually } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';

/*
 * The public-address guard where sockets are opened: whatever a name resolves to when the connection is
 * made, and whatever spelling an address is written in, nothing reaches a private address while the
 * guard is on (production). Names are resolved by a stand-in resolver: `*.example.test` is this machine.
 */

const NOT_PUBLIC = 'Receiver address is not public: private, loopback and link-local addresses are refused';
const PUBLIC_ADDRESS = '93.184.216.34';

let listener: CountingListener;
beforeAll(async () => {
  listener = await startCountingListener();
});
afterAll(() => listener.close());
beforeEach(() => {
  listener.connections = 0;
  listener.requests = [];
});

const toLoopback: HostLookup = async () => [{ address: '127.0.0.1' }];
const urlOn = (host: string) => `http://${host}:${listener.port}/hook`;

/** Answers public to its first `publicAnswers` questions and 127.0.0.1 after: a DNS rebinding name. */
function rebindingLookup(publicAnswers = 1) {
  const asked: string[] = [];
  const lookup: HostLookup = async (host) => {
    asked.push(host);
    return [{ address: asked.length <= publicAnswers ? PUBLIC_ADDRESS : '127.0.0.1' }];
  };
  return { lookup, asked };
}

let counter = 0;
const message = (): MessageHandOff => ({ id: `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`, business: 'acme', client: null, to: '+14155550123', name: null, text: 'Hi', dispatchedAt: new Date('2026-01-01T00:00:00.000Z'), channel: 'sms' as const, media: [] });

test('without the guard the stand-in resolver is what connects: a name it resolves to 127.0.0.1 reaches the listener', async () => {
  const network = outboundNetwork({ publicOnly: false, lookup: toLoopback });
  expect(await postWebhook(urlOn('hooks.example.test'), {}, '{}', 5000, { network })).toEqual({ kind: 'delivered', statusCode: 204 });
  expect(listener.requests).toEqual(['POST /hook']);
});

test('production webhook settings refuse a receiver whose name resolves to 127.0.0.1, and nothing reaches it', async () => {
  const { webhooks } = outboundNetworksOf(loadConfig({ NODE_ENV: 'production' }), toLoopback);
  expect(await postWebhook(urlOn('hooks.example.test'), {}, '{}', 5000, { network: webhooks })).toEqual({ kind: 'refused', statusCode: null, error: NOT_PUBLIC, gone: false });
  expect(listener.connections).toBe(0);
});

test('DNS rebinding: a name that answers public to the check and 127.0.0.1 when connecting is refused at connect time', async () => {
  const { lookup, asked } = rebindingLookup(1);
  const answer = await postWebhook(urlOn('rebind.example.test'), {}, '{}', 5000, { network: outboundNetwork({ publicOnly: true, lookup }) });
  // Asked twice: once by the early check (public), once by the socket (private), which refused it.
  expect(asked).toEqual(['rebind.example.test', 'rebind.example.test']);
  expect(answer).toEqual({ kind: 'refused', statusCode: null, error: NOT_PUBLIC, gone: false });
  expect(listener.connections).toBe(0);
});

test.each([
  ['dotted', '127.0.0.1'],
  ['decimal', '2130706433'],
  ['hex', '0x7f.1'],
  ['octal', '017700000001'],
  ['IPv4-mapped IPv6', '[::ffff:127.0.0.1]'],
  ['a name resolving to loopback', 'loopback.example.test'],
  ['localhost', 'localhost'],
])('the guarded dispatcher and agents refuse %s (%s) before any connection', async (_form, host) => {
  const network = outboundNetwork({ publicOnly: true, lookup: toLoopback });
  const viaFetch = await fetch(urlOn(host), { dispatcher: network.dispatcher }).then(
    () => 'answered',
    (error: unknown) => error,
  );
  expect(isNonPublicAddressRefusal(viaFetch)).toBe(true);
  const viaAgent = await new Promise<unknown>((resolve) => {
    get(urlOn(host), { agent: network.httpAgent }, () => resolve('answered')).on('error', resolve);
  });
  expect(isNonPublicAddressRefusal(viaAgent)).toBe(true);
  expect(listener.connections).toBe(0);
});

test('a name whose answers mix a public and a private address is refused whole', async () => {
  const network = outboundNetwork({ publicOnly: true, lookup: async () => [{ address: PUBLIC_ADDRESS }, { address: '127.0.0.1' }] });
  const error = await fetch(urlOn('mixed.example.test'), { dispatcher: network.dispatcher }).catch((e: unknown) => e);
  expect(isNonPublicAddressRefusal(error)).toBe(true);
  expect(listener.connections).toBe(0);
});

test('the webhook provider under production settings refuses a private receiver for good, and nothing reaches it', async () => {
  const config = loadConfig({ NODE_ENV: 'production', MESSAGE_PROVIDER: 'webhook', MESSAGE_WEBHOOK_URL: urlOn('127.0.0.1') });
  const error = await createProvider(config, undefined as never, undefined).deliver(message()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApplicationFailure);
  expect(error).toMatchObject({ nonRetryable: true, message: 'Webhook address is not public: private, loopback and link-local addresses are refused' });
  expect(listener.connections).toBe(0);
});

test('the webhook provider refuses a rebinding name at connect time; without the guard the same name is delivered to', async () => {
  const { lookup } = rebindingLookup(0);
  const guarded = createWebhookProvider({ url: urlOn('provider.example.test'), network: outboundNetwork({ publicOnly: true, lookup }) });
  await expect(guarded.deliver(message())).rejects.toMatchObject({ nonRetryable: true, message: expect.stringContaining('not public') });
  expect(listener.connections).toBe(0);
  const open = createWebhookProvider({ url: urlOn('provider.example.test'), network: outboundNetwork({ publicOnly: false, lookup }) });
  await open.deliver(message());
  expect(listener.requests).toEqual(['POST /hook']);
});

test('production guards webhooks and CRM APIs unless told otherwise; development and tests do not', () => {
  const networks = (env: Record<string, string>) => outboundNetworksOf(loadConfig(env));
  expect(networks({ NODE_ENV: 'production' })).toMatchObject({ webhooks: { publicOnly: true }, crm: { publicOnly: true } });
  expect(networks({ NODE_ENV: 'development' })).toMatchObject({ webhooks: { publicOnly: false }, crm: { publicOnly: false } });
  expect(networks({ NODE_ENV: 'production', CRM_ALLOW_PRIVATE_URLS: 'true' })).toMatchObject({ webhooks: { publicOnly: true }, crm: { publicOnly: false } });
  expect(networks({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })).toMatchObject({ webhooks: { publicOnly: false }, crm: { publicOnly: true } });
  expect(networks({ NODE_ENV: 'test', CRM_ALLOW_PRIVATE_URLS: 'false' }).crm.publicOnly).toBe(true);
  expect(() => loadConfig({ CRM_ALLOW_PRIVATE_URLS: 'yes' })).toThrow('CRM_ALLOW_PRIVATE_URLS');
});

describe('an event webhook of a stack guarded as in production', () => {
  let stack: TestStack;
  // Per name: public to the first question (the subscription's early check), 127.0.0.1 after (the socket's).
  const asked = new Map<string, number>();
  const rebinding: HostLookup = async (host) => {
    asked.set(host, (asked.get(host) ?? 0) + 1);
    return [{ address: asked.get(host) === 1 ? PUBLIC_ADDRESS : '127.0.0.1' }];
  };
  beforeAll(async () => {
    stack = await startTestStack({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }, hostLookup: rebinding });
  });
  afterAll(() => stack?.stop());

  test('a receiver name rebound to 127.0.0.1 after the check fails its delivery as not public; nothing reaches the listener', async () => {
    const token = stack.token('rebinding-user');
    const created = await stack.api('POST', '/webhooks', { token, body: { url: urlOn('rebind-stack.example.test') } });
    expect(created.status).toBe(201);
    expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone: '+14155550100' } })).status).toBe(201);
    // A loaded machine may find the service behind: a 503 says when to come back, as a client would.
    let sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'hi', delay: '1h' } });
    for (let tries = 1; sent.status === 503 && tries < 5; tries++) {
      await new Promise((resolve) => setTimeout(resolve, Number(sent.headers.get('retry-after') ?? 1) * 1000));
      sent = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'hi', delay: '1h' } });
    }
    expect(sent.status).toBe(202);
    const [delivery] = await eventually(async () => {
      const listed = (await stack.api('GET', `/webhooks/${created.body._id}/deliveries`, { token })).body.deliveries;
      return listed.length && listed[0].status !== 'pending' ? listed : undefined;
    });
    expect(delivery).toMatchObject({ status: 'failed', last_status_code: null, last_error: NOT_PUBLIC });
    expect(asked.get('rebind-stack.example.test')).toBeGreaterThanOrEqual(2);
    expect(listener.connections).toBe(0);
  });
});
