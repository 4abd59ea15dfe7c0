import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTelnyxCarrier } from '../../../src/carriers/telnyx';
import { createTwilioCarrier } from '../../../src/carriers/twilio';
import { createVonageCarrier } from '../../../src/carriers/vonage';
import { hubspotSignatureV3 } from '../../../src/crm';
import { codecHandler } from '../../../src/worker/codec-endpoint';
import { connectedStack } from '../../support/crm';
import { originOf, uniqueName, type TestStack } from '../../support/stack';
import { testDir } from '../../support/temp-dir';

/*
 * Every door that reads a body before it knows the caller (the CRMs' inbound routes, the carriers'
 * callbacks, the worker's codec) costs time linear in the body: 1 MB of each shape that makes a naive
 * parser quadratic is answered within 1 s, with and without the caller's credential, and another
 * business's GET /clients keeps the latency it has while as many plain bodies of the same size come.
 */

const MB = 1_000_000;
const fill = (unit: string, bytes: number) => unit.repeat(Math.floor(bytes / unit.length));
const shapesOf = (bytes: number): Record<string, string> => ({
  'open <OrganizationId tags': fill('<OrganizationId ', bytes),
  'open <Notification> tags': fill('<Notification>', bytes),
  'nested tags': fill('<a>', bytes),
  'a huge attribute': `<a b="${'x'.repeat(bytes - 10)}"/>`,
  'nested JSON arrays': fill('[', bytes),
  'nested JSON objects': fill('{"a":', bytes),
  'a form of one key repeated': fill('a=&', bytes),
  'a form of many keys': Array.from({ length: Math.floor(bytes / 10) }, (_, i) => `k${i}=v`).join('&').slice(0, bytes),
});

const SALESFORCE_ORG = '00D000000000001AAA';
let stack: TestStack;
let token: string;
let origin: string;
const carrierOrigins: Record<string, string> = {};
let codec: Server;
let codecOrigin: string;
const CODEC_TOKEN = 'c'.repeat(40);
const urls: Record<string, string> = {};
const secrets = { hubspot: 'hubspot-client-secret', pipedriveUser: 'pd-user', pipedrivePassword: 'pd-password' };

beforeAll(async () => {
  ({ stack, token } = await connectedStack('hubspot', {
    env: { CRM_INBOUND_RATE_LIMIT_PER_MINUTE: '0' },
    agents: ['a1'],
    body: { agents: ['a1'], settings: { client_secret: secrets.hubspot, access_token: 'pat-na1-x' } },
  }).then(async (connected) => {
    urls.hubspot = connected.inboundUrl;
    return connected;
  }));
  const put = (crm: string, settings: Record<string, string>) => stack.api('PUT', `/integrations/${crm}`, { token, body: { agents: ['a1'], settings } });
  urls.salesforce = (await put('salesforce', { organization_id: SALESFORCE_ORG, instance_url: 'https://acme.my.salesforce.com', access_token: 't' })).body.inbound_url;
  urls.pipedrive = (await put('pipedrive', { api_token: 'pd', webhook_user: secrets.pipedriveUser, webhook_password: secrets.pipedrivePassword })).body.inbound_url;
  origin = originOf(stack);

  const telnyxKey = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
  const carriers = {
    twilio: createTwilioCarrier({ accountSid: `AC${'0'.repeat(32)}`, authToken: 'twilio-auth-token', from: '+15550001000' }),
    telnyx: createTelnyxCarrier({ TELNYX_API_KEY: 'KEY', TELNYX_FROM: '+15550001000', TELNYX_PUBLIC_KEY: telnyxKey } as never),
    vonage: createVonageCarrier({ VONAGE_API_KEY: 'key', VONAGE_API_SECRET: 'secret', VONAGE_FROM: '15550001000', VONAGE_SIGNATURE_SECRET: 'vonage-signature-secret' } as never),
  };
  for (const [name, carrier] of Object.entries(carriers)) carrierOrigins[name] = originOf(await stack.startApi({ carrier, publicBaseUrl: 'https://sms.example.test' }));

  const handle = codecHandler({ codec: { encode: async (p) => p, decode: async (p) => p }, credentials: { token: CODEC_TOKEN }, origins: [], namespace: 'default', log: () => undefined });
  codec = createServer((req, res) => void handle(req, res).then((served) => served || res.writeHead(404).end()));
  await new Promise<void>((resolve) => codec.listen(0, '127.0.0.1', resolve));
  codecOrigin = `http://127.0.0.1:${(codec.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => codec?.close(resolve));
  await stack?.stop();
});

interface Door {
  name: string;
  url: () => string;
  headers: (body: string, url: string) => Record<string, string>;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const crmDoors: Door[] = [
  { name: 'HubSpot, unsigned', url: () => urls.hubspot, headers: () => ({ 'content-type': 'application/json' }) },
  {
    name: 'HubSpot, signed',
    url: () => urls.hubspot,
    headers: (body, url) => {
      const timestamp = String(Date.now());
      return { 'content-type': 'application/json', 'x-hubspot-request-timestamp': timestamp, 'x-hubspot-signature-v3': hubspotSignatureV3(secrets.hubspot, 'POST', url, Buffer.from(body), timestamp) };
    },
  },
  { name: 'Salesforce, without the URL\'s secret', url: () => urls.salesforce.replace(/\/[^/]+$/, '/wrong'), headers: () => ({ 'content-type': 'text/xml' }) },
  { name: 'Salesforce, with it', url: () => urls.salesforce, headers: () => ({ 'content-type': 'text/xml' }) },
  { name: 'Pipedrive, unauthenticated', url: () => urls.pipedrive, headers: () => ({ 'content-type': 'application/json' }) },
  { name: 'Pipedrive, authenticated', url: () => urls.pipedrive, headers: () => ({ 'content-type': 'application/json', authorization: basic(secrets.pipedriveUser, secrets.pipedrivePassword) }) },
];
const carrierDoors: Door[] = ['twilio', 'telnyx', 'vonage'].flatMap((carrier) =>
  ['inbound', 'status'].map((kind) => ({
    name: `${carrier} ${kind} callback`,
    url: () => `${carrierOrigins[carrier]}/providers/${carrier}/${kind}`,
    headers: () => ({ 'content-type': carrier === 'twilio' ? 'application/x-www-form-urlencoded' : 'application/json' }),
  })),
);
const codecDoors: Door[] = [
  { name: 'codec, without a credential', url: () => `${codecOrigin}/codec/decode`, headers: () => ({ 'content-type': 'application/json' }) },
  { name: 'codec, with one', url: () => `${codecOrigin}/codec/decode`, headers: () => ({ 'content-type': 'application/json', authorization: `Bearer ${CODEC_TOKEN}` }) },
];

async function timedPost(door: Door, body: string): Promise<{ status: number; ms: number }> {
  const url = door.url();
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: door.headers(body, url), body });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

/** Each door with each shape: 1 MB, and for the carriers (whose limit is 100 kB) 100 kB too, so their parsers are reached. */
const attacks = (): { door: Door; shape: string; body: string }[] => [
  ...[...crmDoors, ...carrierDoors, ...codecDoors].flatMap((door) => Object.entries(shapesOf(MB)).map(([shape, body]) => ({ door, shape: `1 MB of ${shape}`, body }))),
  ...carrierDoors.flatMap((door) => Object.entries(shapesOf(99_000)).map(([shape, body]) => ({ door, shape: `99 kB of ${shape}`, body }))),
];

test('1 MB of each pathological shape is answered within 1 s by every door that reads a body before it knows the caller, and never with a 5xx', async () => {
  const slow: string[] = [];
  for (const { door, shape, body } of attacks()) {
    // The best of three tries: a quadratic parser is slow each time, a busy machine only now and then.
    let best = { status: 0, ms: Infinity };
    for (let attempt = 0; attempt < 3 && best.ms >= 1000; attempt++) {
      const answer = await timedPost(door, body);
      if (answer.ms < best.ms) best = answer;
    }
    if (best.ms >= 1000 || best.status >= 500) slow.push(`${door.name}, ${shape}: ${best.status} after ${Math.round(best.ms)} ms`);
  }
  expect(slow).toEqual([]);
}, 300_000);

/** Posts the attacks one after the other, in a process of its own (as an attacker's would be), until killed. */
const ATTACKER = `
const { readFileSync } = require('node:fs');
const { bodies, requests } = JSON.parse(readFileSync(process.argv[1], 'utf8'));
(async () => {
  for (let i = 0; ; i++) {
    const { url, headers, body } = requests[i % requests.length];
    try { const r = await fetch(url, { method: 'POST', headers, body: bodies[body] }); await r.arrayBuffer(); } catch {}
  }
})();
`;

test('while they come, another business\'s GET /clients keeps its latency: p50 and p99 within 2x of those under as many plain bodies of the same size', async () => {
  const other = uniqueName('biz');
  const otherToken = stack.token(uniqueName('user'));
  const clients = `${origin}/ext/v2/${other}/clients`;
  expect((await fetch(clients, { method: 'POST', headers: { authorization: `Bearer ${otherToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ _id: 'c1' }) })).status).toBe(201);
  const sample = async (count: number) => {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const response = await fetch(clients, { headers: { authorization: `Bearer ${otherToken}` } });
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      times.push(performance.now() - started);
    }
    return times;
  };
  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
  };

  // The same doors, the same sizes, the same pace: once with the shapes, once with plain bytes. A machine
  // busy with other work slows both alike; a parser whose cost grows faster than the body shows.
  const dir = await testDir('attack-');
  const attackFile = async (name: string, plain: boolean) => {
    const bodies: string[] = [];
    const requests = attacks().filter(({ door }) => !door.url().startsWith(codecOrigin)).map(({ door, body: shaped }) => {
      const body = plain ? 'x'.repeat(shaped.length) : shaped;
      if (!bodies.includes(body)) bodies.push(body);
      const url = door.url();
      return { url, headers: door.headers(body, url), body: bodies.indexOf(body) };
    });
    const file = join(dir, `${name}.json`);
    await writeFile(file, JSON.stringify({ bodies, requests }));
    return file;
  };
  const files = { plain: await attackFile('plain', true), shaped: await attackFile('shaped', false) };
  const under = async (file: string, count: number) => {
    const attacker = spawn(process.execPath, ['-e', ATTACKER, file], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const times = await sample(count);
      expect(attacker.exitCode).toBeNull();
      return times;
    } finally {
      attacker.kill();
    }
  };

  await sample(20);
  const plain: number[] = [];
  const shaped: number[] = [];
  for (let round = 0; round < 3; round++) {
    plain.push(...(await under(files.plain, 50)));
    shaped.push(...(await under(files.shaped, 50)));
  }
  const summary = (values: number[]) => ({ p50: Math.round(percentile(values, 0.5) * 10) / 10, p99: Math.round(percentile(values, 0.99) * 10) / 10 });
  console.log(`GET /clients of another business: under plain 1 MB bodies ${JSON.stringify(summary(plain))} ms, under the pathological shapes ${JSON.stringify(summary(shaped))} ms`);
  // 2x, with 5 ms of slack for a timer's or a collector's tick on a busy machine.
  expect(percentile(shaped, 0.5)).toBeLessThanOrEqual(2 * percentile(plain, 0.5) + 5);
  expect(percentile(shaped, 0.99)).toBeLessThanOrEqual(2 * percentile(plain, 0.99) + 5);
}, 300_000);
