import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTelnyxCarrier } from '../../../src/carriers/telnyx';
import { createTwilioCarrier } from '../../../src/carriers/twilio';
import { createVonageCarrier } from '../../../src/carriers/vonage';
import { hubspotSignatureV3 } from '../../../src/crm';
import { codecHandler } from '../../../src/worker/codec-endpoint';
import { connectedStack } from '../../support/crm';
import { originOf, type TestStack } from '../../support/stack';
import { MB, shapesOf } from '../../../bench/pathological-bodies';

/*
 * Every door that reads a body before it knows the caller (the CRMs' inbound routes, the carriers'
 * callbacks, the worker's codec) costs time linear in the body: 1 MB of each shape that makes a naive
 * parser quadratic is answered within 1 s, with and without the caller's credential. What another
 * business's latency does while they come is a figure, measured by `npm run bench -- bodies`.
 */

const SALESFORCE_ORG = '00D000000000001AAA';
let stack: TestStack;
let token: string;
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
