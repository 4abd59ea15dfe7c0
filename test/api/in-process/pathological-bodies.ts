import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { codecHandler } from '../../../src/worker/codec-endpoint';
import { attacksOn, carrierDoors, CONNECTOR_SETTINGS, crmDoors, doorCarriers, type Door } from '../../../bench/pathological-bodies';
import { connectedStack } from '../../support/crm';
import { originOf, type TestStack } from '../../support/stack';

/*
 * Every door that reads a body before it knows the caller (the CRMs' inbound routes, the carriers'
 * callbacks, the worker's codec) costs time linear in the body: 1 MB of each shape that makes a naive
 * parser quadratic is answered within 1 s, with and without the caller's credential. What another
 * business's latency does while they come is a figure, measured by `npm run bench -- bodies`.
 */

let stack: TestStack;
let codec: Server;
const CODEC_TOKEN = 'c'.repeat(40);
let attacks: ReturnType<typeof attacksOn>;

beforeAll(async () => {
  const connected = await connectedStack('hubspot', {
    env: { CRM_INBOUND_RATE_LIMIT_PER_MINUTE: '0' },
    agents: ['a1'],
    body: { agents: ['a1'], settings: CONNECTOR_SETTINGS.hubspot },
  });
  stack = connected.stack;
  const put = (crm: 'salesforce' | 'pipedrive') => stack.api('PUT', `/integrations/${crm}`, { token: connected.token, body: { agents: ['a1'], settings: CONNECTOR_SETTINGS[crm] } });
  const inbound = { hubspot: connected.inboundUrl, salesforce: (await put('salesforce')).body.inbound_url, pipedrive: (await put('pipedrive')).body.inbound_url };

  const origins = {} as Parameters<typeof carrierDoors>[0];
  for (const [name, carrier] of Object.entries(doorCarriers())) origins[name as keyof typeof origins] = originOf(await stack.startApi({ carrier, publicBaseUrl: 'https://sms.example.test' }));

  const handle = codecHandler({ codec: { encode: async (p) => p, decode: async (p) => p }, credentials: { token: CODEC_TOKEN }, origins: [], namespace: 'default', log: () => undefined });
  codec = createServer((req, res) => void handle(req, res).then((served) => served || res.writeHead(404).end()));
  await new Promise<void>((resolve) => codec.listen(0, '127.0.0.1', resolve));
  const codecUrl = `http://127.0.0.1:${(codec.address() as AddressInfo).port}/codec/decode`;
  const codecDoors: Door[] = [
    { name: 'codec, without a credential', url: codecUrl, headers: () => ({ 'content-type': 'application/json' }) },
    { name: 'codec, with one', url: codecUrl, headers: () => ({ 'content-type': 'application/json', authorization: `Bearer ${CODEC_TOKEN}` }) },
  ];
  const carriers = carrierDoors(origins);
  attacks = attacksOn([...crmDoors(inbound), ...carriers, ...codecDoors], carriers);
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => codec?.close(resolve));
  await stack?.stop();
});

async function timedPost(door: Door, body: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(door.url, { method: 'POST', headers: door.headers(body), body });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

test('1 MB of each pathological shape is answered within 1 s by every door that reads a body before it knows the caller, and never with a 5xx', async () => {
  const slow: string[] = [];
  for (const { door, shape, body } of attacks) {
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
