import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { loadConfig, webhookSettingsOf } from '../../../src/config/index';
import { isPublicAddress, namesNonPublicHost } from '../../../src/net/public-address';
import { eventually } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';

/* A tenant's webhook URL must not make the worker POST into our own network (SSRF). */

const REFUSED_URL = 'Invalid url: must be a public address (private, loopback and link-local hosts are refused)';

let stack: TestStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  // A failed lookup's delivery is tried again 1 s later, not the default 5 s.
  stack = await startTestStack({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_RETRY_INITIAL_MS: '1000' } });
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

/* Every block of IANA's special-purpose registries, in each notation an attacker might write it. */
const NOT_PUBLIC_ADDRESSES: [form: string, address: string][] = [
  ['this network', '0.0.0.0'], ['private 10/8', '10.255.0.1'], ['shared 100.64/10', '100.127.255.254'], ['loopback', '127.255.255.254'],
  ['link-local (metadata)', '169.254.169.254'], ['private 172.16/12', '172.31.0.1'], ['IETF protocol assignments', '192.0.0.9'],
  ['TEST-NET-1', '192.0.2.1'], ['AS112-v4', '192.31.196.1'], ['AMT', '192.52.193.1'], ['6to4 relay anycast', '192.88.99.1'],
  ['private 192.168/16', '192.168.1.1'], ['direct delegation AS112', '192.175.48.1'], ['benchmarking', '198.19.255.1'],
  ['TEST-NET-2', '198.51.100.7'], ['TEST-NET-3', '203.0.113.7'], ['multicast', '239.1.1.1'], ['reserved', '250.0.0.1'], ['limited broadcast', '255.255.255.255'],
  ['unspecified', '::'], ['loopback', '::1'], ['loopback, long form', '0:0:0:0:0:0:0:1'], ['IPv4-compatible loopback (hex)', '::7f00:1'],
  ['IPv4-compatible loopback (dotted)', '::127.0.0.1'], ['IPv4-compatible, public inside', '::8.8.8.8'],
  ['IPv4-mapped loopback (hex)', '::ffff:7f00:1'], ['IPv4-mapped private (dotted)', '::ffff:10.0.0.1'], ['IPv4-mapped, long form', '0:0:0:0:0:ffff:a9fe:a9fe'],
  ['IPv4-translated loopback (hex)', '::ffff:0:7f00:1'], ['IPv4-translated, public inside', '::ffff:0:8.8.8.8'],
  ['NAT64 well-known', '64:ff9b::7f00:1'], ['NAT64 well-known, public inside', '64:ff9b::8.8.8.8'], ['NAT64 local-use', '64:ff9b:1::a00:1'],
  ['discard-only', '100::1'], ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'], ['benchmarking', '2001:2::1'], ['ORCHIDv2', '2001:20::1'],
  ['documentation', '2001:db8::1'], ['6to4', '2002:7f00:1::1'], ['6to4, public inside', '2002:808:808::1'], ['direct delegation AS112', '2620:4f:8000::1'],
  ['documentation 3fff::/20', '3fff:0fff::1'], ['SRv6 SIDs', '5f00::1'], ['unique local', 'fd12:3456::1'], ['unique local fc00', 'fc00::1'],
  ['site-local (deprecated)', 'fec0::1'], ['link-local', 'fe80::1'], ['link-local with zone', 'fe80::1%eth0'], ['multicast', 'ff02::1'],
  ['not an address', 'not-an-ip'], ['IPv4 with a leading zero part', '127.0.0.01'],
];

test.each(NOT_PUBLIC_ADDRESSES)('%s (%s) is not public', (_form, address) => {
  expect(isPublicAddress(address)).toBe(false);
});

test.each([
  ['IPv4', '8.8.8.8'], ['IPv4', '93.184.216.34'], ['just outside TEST-NET-1', '192.0.3.1'], ['just outside 172.16/12', '172.32.0.1'],
  ['IPv6 global unicast', '2606:4700:4700::1111'], ['IPv6 global unicast, long form', '2a00:1450:4001:0831:0000:0000:0000:200e'],
  ['IPv4-mapped public (dotted)', '::ffff:8.8.8.8'], ['IPv4-mapped public (hex)', '::ffff:808:808'], ['just after 2001::/23', '2001:200::1'],
])('%s (%s) is public', (_form, address) => {
  expect(isPublicAddress(address)).toBe(true);
});

/* What a tenant may write in a URL: numeric IPv4 forms the URL parser reads as an address, bracketed IPv6, and local names. */
const REFUSED_HOSTS: [form: string, url: string][] = [
  ['decimal IPv4', 'http://2130706433/'], ['hex IPv4', 'http://0x7f.1/'], ['octal IPv4', 'http://017700000001/'], ['short IPv4', 'http://127.1/'],
  ['IPv4 with a trailing dot', 'http://127.0.0.1./'], ['zero', 'http://0/'], ['TEST-NET-1', 'http://192.0.2.10/'],
  ['IPv4-compatible', 'http://[::7f00:1]/'], ['IPv4-mapped (dotted)', 'http://[::ffff:127.0.0.1]/'], ['IPv4-translated', 'http://[::ffff:0:7f00:1]/'],
  ['NAT64 local-use', 'http://[64:ff9b:1::7f00:1]/'], ['6to4', 'https://[2002:7f00:1::1]/'], ['site-local', 'http://[fec0::1]/'],
  ['localhost', 'http://localhost/'], ['localhost with a trailing dot', 'http://localhost./'], ['upper-case localhost', 'http://LOCALHOST:8080/'],
  ['a .localhost name', 'http://api.localhost/'], ['a .localhost name with a trailing dot', 'http://api.localhost./'],
  ['localhost.localdomain', 'http://localhost.localdomain/'], ['localhost6', 'http://localhost6/'], ['ip6-localhost', 'http://ip6-localhost/'],
  ['an mDNS name', 'http://printer.local/'], ['an .internal name', 'http://metadata.google.internal/computeMetadata/v1/'], ['a home.arpa name', 'http://router.home.arpa/'],
];

test.each(REFUSED_HOSTS)('%s (%s) names a non-public host', (_form, url) => {
  expect(namesNonPublicHost(new URL(url))).toBe(true);
});

test.each([['a public name', 'https://hooks.example.com/x'], ['a public IPv4', 'https://8.8.8.8/'], ['a public IPv6', 'https://[2606:4700:4700::1111]/'], ['a name that merely contains localhost', 'https://notlocalhost.example.com/']])(
  '%s (%s) is left to the DNS check',
  (_form, url) => {
    expect(namesNonPublicHost(new URL(url))).toBe(false);
  },
);

test('production refuses private receivers unless told otherwise; development and tests allow them', () => {
  expect(webhookSettingsOf(loadConfig({ NODE_ENV: 'production' })).allowPrivateUrls).toBe(false);
  expect(webhookSettingsOf(loadConfig({ NODE_ENV: 'development' })).allowPrivateUrls).toBe(true);
  expect(webhookSettingsOf(loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })).allowPrivateUrls).toBe(true);
  expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' })).toThrow('WEBHOOK_ALLOW_PRIVATE_URLS');
});

test('a webhook URL naming a private host is a 400 and creates nothing', async () => {
  const token = stack.token('ssrf-user');
  for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest/meta-data', 'https://10.1.2.3/', 'http://[::ffff:10.0.0.1]/', ...REFUSED_HOSTS.map(([, refused]) => refused)]) {
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

/** A user's webhook on `url` and one event for it; resolves with its delivery once its first attempt is recorded. */
async function deliveryAfterFirstAttempt(user: string, url: string) {
  const token = stack.token(user);
  const created = await stack.api('POST', '/webhooks', { token, body: { url } });
  expect(created.status).toBe(201);
  expect((await stack.api('POST', '/clients', { token, body: { _id: 'c1', phone: '+14155550100' } })).status).toBe(201);
  expect((await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c1', text_message: 'hi', delay: '1h' } })).status).toBe(202);
  const deliveries = async () => (await stack.api('GET', `/webhooks/${created.body._id}/deliveries`, { token })).body.deliveries;
  const [delivery] = await eventually(async () => {
    const listed = await deliveries();
    return listed.length && (listed[0].status !== 'pending' || listed[0].last_error) ? listed : undefined;
  });
  return { delivery, deliveries };
}

test('a failed address lookup is not taken for a public address: nothing is sent, and the delivery is retried', async () => {
  // The check's lookup of this machine's name fails (a resolver timing out), while fetch's own lookup would
  // still find the machine: posting anyway would reach a private address.
  const name = hostname();
  // The module object itself, which the check calls through (an `import * as` would be a copy).
  const dns: typeof import('node:dns/promises') = require('node:dns/promises');
  const systemLookup = dns.lookup;
  const failing = jest.spyOn(dns, 'lookup').mockImplementation(((host: string, options: any) => {
    if (host !== name) return systemLookup(host, options);
    return Promise.reject(Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: 'EAI_AGAIN' }));
  }) as typeof dns.lookup);
  let retried;
  try {
    const { delivery, deliveries } = await deliveryAfterFirstAttempt('ssrf-dns-failure-user', receiver.url.replace('127.0.0.1', name));
    expect(delivery).toMatchObject({ status: 'pending', last_status_code: null, last_error: 'Receiver address could not be resolved: EAI_AGAIN', next_attempt_at: expect.any(String) });
    failing.mockRestore();
    // The resolver healed: the next attempt (1 s later, or a later one if this test was slower) looks again, finds a private address and refuses it.
    retried = await eventually(async () => {
      const [latest] = await deliveries();
      return latest.status !== 'pending' ? latest : undefined;
    }, 30_000);
  } finally {
    failing.mockRestore();
  }
  expect(retried).toMatchObject({ status: 'failed', last_error: 'Receiver address is not public: private, loopback and link-local addresses are refused' });
  expect(retried.attempts).toBeGreaterThanOrEqual(2);
  expect(receiver.requests).toEqual([]);
});

test('a name that does not exist is retried as a transient failure, with its own error', async () => {
  const { delivery } = await deliveryAfterFirstAttempt('ssrf-nxdomain-user', 'https://no-such-receiver.invalid/hook');
  expect(delivery).toMatchObject({ status: 'pending', last_status_code: null, last_error: 'Receiver address could not be resolved: ENOTFOUND', next_attempt_at: expect.any(String) });
});
