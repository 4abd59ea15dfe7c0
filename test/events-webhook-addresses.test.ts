import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { loadConfig, webhookSettingsOf } from '../src/config';
import { isPublicAddress } from '../src/infra/public-address';
import { eventually } from './support/helpers';
import { startTestStack, type TestStack } from './support/stack';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

/* A tenant's webhook URL must not make the worker POST into our own network (SSRF). */

const REFUSED_URL = 'Invalid url: must be a public address (private, loopback and link-local hosts are refused)';

let stack: TestStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startTestStack({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' } });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

test('private, loopback, link-local and shared addresses are not public; ordinary ones are', () => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:10.0.0.1', 'not-an-ip']) {
    expect([address, isPublicAddress(address)]).toEqual([address, false]);
  }
  for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect([address, isPublicAddress(address)]).toEqual([address, true]);
});

test('production refuses private receivers unless told otherwise; development and tests allow them', () => {
  expect(webhookSettingsOf(loadConfig({ NODE_ENV: 'production' })).allowPrivateUrls).toBe(false);
  expect(webhookSettingsOf(loadConfig({ NODE_ENV: 'development' })).allowPrivateUrls).toBe(true);
  expect(webhookSettingsOf(loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })).allowPrivateUrls).toBe(true);
  expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' })).toThrow('WEBHOOK_ALLOW_PRIVATE_URLS');
});

test('a webhook URL naming a private host is a 400 and creates nothing', async () => {
  const token = stack.token('ssrf-user');
  for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest/meta-data', 'https://10.1.2.3/', 'http://[::ffff:10.0.0.1]/']) {
    const res = await stack.api('POST', '/webhooks', { token, body: { url } });
    expect([url, res.status, res.body.detail]).toEqual([url, 400, REFUSED_URL]);
  }
  expect((await stack.api('GET', '/webhooks', { token })).body.webhooks).toEqual([]);
});

test('a host name that resolves to a private address is refused at delivery: nothing is sent, the delivery says why', async () => {
  // This machine's own name resolves to one of its own, non-public addresses.
  const { address } = await lookup(hostname());
  expect(isPublicAddress(address)).toBe(false);
  const token = stack.token('ssrf-dns-user');
  const url = receiver.url.replace('127.0.0.1', hostname());
  const created = await stack.api('POST', '/webhooks', { token, body: { url } });
  expect(created.status).toBe(201);

  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone: '+14155550100' } })).status).toBe(201);
  expect((await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'hi', delay: '1h' } })).status).toBe(202);
  const [delivery] = await eventually(async () => {
    const listed = (await stack.api('GET', `/webhooks/${created.body._id}/deliveries`, { token })).body.deliveries;
    return listed.length && listed[0].status !== 'pending' ? listed : undefined;
  });
  expect(delivery).toMatchObject({
    event: { type: 'message.scheduled' },
    status: 'failed',
    last_status_code: null,
    last_error: 'Receiver address is not public: private, loopback and link-local addresses are refused',
  });
  expect(receiver.requests).toEqual([]);
});
