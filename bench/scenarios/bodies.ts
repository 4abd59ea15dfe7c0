import { generateKeyPairSync } from 'node:crypto';
import pino from 'pino';
import { listen } from '../../src/api/http/server';
import { createTelnyxCarrier } from '../../src/carriers/telnyx';
import { createTwilioCarrier } from '../../src/carriers/twilio';
import { createVonageCarrier } from '../../src/carriers/vonage';
import { hubspotSignatureV3 } from '../../src/crm';
import { createApi } from '../../src/main/services';
import { cpuAccumulator } from '../cpu';
import { attack, attackFile, MB, shapesOf, type AttackRequest } from '../pathological-bodies';
import { printResult, ratio, type ScenarioResult } from '../report';
import { distribution, startBenchStack, type BenchStack } from '../stack';

/*
 * `npm run bench -- bodies [samples=50] [rounds=3]`: another business's GET /clients, one after the other,
 * while an attacker in another process posts 1 MB bodies of the shapes that make a naive parser quadratic
 * (pathological-bodies.ts) to every door that reads a body before it knows the caller: the CRMs' inbound
 * routes, with and without their credential, and the three carriers' callbacks (also at 99 kB, under their
 * 100 kB limit). The baseline is the same doors at the same pace with as many plain bytes; the rounds
 * alternate. A parser whose cost grows faster than the body shows as the ratio.
 */
const log = (line: string) => console.error(`[bodies] ${line}`);

const SALESFORCE_ORG = '00D000000000001AAA';
const SECRETS = { hubspot: 'hubspot-client-secret', pipedriveUser: 'pd-user', pipedrivePassword: 'pd-password' };

async function post(url: string, token: string, method: string, body: unknown) {
  const response = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The doors, with the bench user's connectors and three APIs with a carrier each. */
async function doorsOf(stack: BenchStack) {
  const token = stack.tokenFor('bench-user');
  const api = `${stack.baseUrl}/ext/v2/${stack.path.businessname}`;
  await post(`${api}/agents`, token, 'POST', { _id: 'a1' });
  const connect = async (crm: string, settings: Record<string, string>) => (await post(`${api}/integrations/${crm}`, token, 'PUT', { agents: ['a1'], settings })).inbound_url as string;
  const hubspot = await connect('hubspot', { client_secret: SECRETS.hubspot, access_token: 'pat-na1-x' });
  const salesforce = await connect('salesforce', { organization_id: SALESFORCE_ORG, instance_url: 'https://acme.my.salesforce.com', access_token: 't' });
  const pipedrive = await connect('pipedrive', { api_token: 'pd', webhook_user: SECRETS.pipedriveUser, webhook_password: SECRETS.pipedrivePassword });

  const telnyxKey = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
  const carriers = {
    twilio: createTwilioCarrier({ accountSid: `AC${'0'.repeat(32)}`, authToken: 'twilio-auth-token', from: '+15550001000' }),
    telnyx: createTelnyxCarrier({ TELNYX_API_KEY: 'KEY', TELNYX_FROM: '+15550001000', TELNYX_PUBLIC_KEY: telnyxKey } as never),
    vonage: createVonageCarrier({ VONAGE_API_KEY: 'key', VONAGE_API_SECRET: 'secret', VONAGE_FROM: '15550001000', VONAGE_SIGNATURE_SECRET: 'vonage-signature-secret' } as never),
  };
  const servers: Awaited<ReturnType<typeof listen>>[] = [];
  const carrierDoors: Omit<AttackRequest, 'body'>[] = [];
  for (const [name, carrier] of Object.entries(carriers)) {
    const server = await listen(createApi({ ...stack.services, carrier }, { log: () => undefined, logger: pino({ level: 'silent' }), publicBaseUrl: 'https://sms.example.test' }), 0, '127.0.0.1');
    servers.push(server);
    const contentType = name === 'twilio' ? 'application/x-www-form-urlencoded' : 'application/json';
    for (const kind of ['inbound', 'status']) carrierDoors.push({ url: `http://127.0.0.1:${server.port}/providers/${name}/${kind}`, headers: () => ({ 'content-type': contentType }) });
  }
  const basic = `Basic ${Buffer.from(`${SECRETS.pipedriveUser}:${SECRETS.pipedrivePassword}`).toString('base64')}`;
  const json = () => ({ 'content-type': 'application/json' });
  const crmDoors: Omit<AttackRequest, 'body'>[] = [
    { url: hubspot, headers: json },
    {
      url: hubspot,
      headers: (body) => {
        const timestamp = String(Date.now());
        return { ...json(), 'x-hubspot-request-timestamp': timestamp, 'x-hubspot-signature-v3': hubspotSignatureV3(SECRETS.hubspot, 'POST', hubspot, Buffer.from(body), timestamp) };
      },
    },
    { url: salesforce.replace(/\/[^/]+$/, '/wrong'), headers: () => ({ 'content-type': 'text/xml' }) },
    { url: salesforce, headers: () => ({ 'content-type': 'text/xml' }) },
    { url: pipedrive, headers: json },
    { url: pipedrive, headers: () => ({ ...json(), authorization: basic }) },
  ];
  const requests: AttackRequest[] = [
    ...[...crmDoors, ...carrierDoors].flatMap((door) => Object.values(shapesOf(MB)).map((body) => ({ ...door, body }))),
    ...carrierDoors.flatMap((door) => Object.values(shapesOf(99_000)).map((body) => ({ ...door, body }))),
  ];
  return { requests, doors: crmDoors.length + carrierDoors.length, stop: async () => { for (const server of servers) await server.stop(); } };
}

export async function run(args: string[]): Promise<ScenarioResult> {
  const [samples = 50, rounds = 3] = args.map(Number);
  // The CRM routes' per-minute limit would answer most of the attack 429 before any parser ran.
  process.env.CRM_INBOUND_RATE_LIMIT_PER_MINUTE = '0';
  const stack = await startBenchStack();
  const doors = await doorsOf(stack);
  try {
    const otherToken = stack.tokenFor('other-user');
    const clients = `${stack.baseUrl}/ext/v2/other-business/clients`;
    await post(clients, otherToken, 'POST', { _id: 'c1' });
    const sample = async (count: number) => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const began = performance.now();
        const response = await fetch(clients, { headers: { authorization: `Bearer ${otherToken}` } });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`GET /clients of the other business: ${response.status}`);
        times.push(performance.now() - began);
      }
      return times;
    };
    const files = { plain: await attackFile(stack.dir, 'plain', doors.requests, true), shaped: await attackFile(stack.dir, 'shaped', doors.requests, false) };
    const cpu = { plain: cpuAccumulator(), shaped: cpuAccumulator() };
    const under = async (kind: 'plain' | 'shaped') => {
      const attacker = attack(files[kind]);
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const times = await sample(samples);
        if (!attacker.running()) throw new Error(`the ${kind} attacker stopped`);
        return times;
      } finally {
        attacker.stop();
      }
    };

    await sample(20); // warm-up
    const idle = distribution(await sample(samples * rounds));
    const times = { plain: [] as number[], shaped: [] as number[] };
    for (let round = 1; round <= rounds; round++) {
      log(`round ${round} of ${rounds}: ${samples} GETs under plain bodies, then under the shapes`);
      for (const kind of ['plain', 'shaped'] as const) {
        times[kind].push(...(await cpu[kind].during(() => under(kind))));
      }
    }
    const plain = distribution(times.plain);
    const shaped = distribution(times.shaped);
    const count = samples * rounds;
    return printResult({
      scenario: 'bodies',
      what: `another business's GET /clients, one at a time, while an attacker posts 1 MB bodies (the carriers' also 99 kB) to the ${doors.doors} doors that read a body before they know the caller; ${rounds} alternating rounds of ${samples}; embedded stack, one process`,
      baseline: { label: 'GET /clients while the same doors get as many plain bytes', figures: { ...plain, idle } },
      project: { label: 'GET /clients while the doors get the pathological shapes', figures: shaped },
      ratios: { p50: ratio(shaped.p50, plain.p50), p99: ratio(shaped.p99, plain.p99) },
      goals: [
        { goal: 'p50 under the shapes ≤ 2× p50 under plain bodies (+5 ms)', measured: `${shaped.p50} against ${plain.p50} ms`, met: shaped.p50 <= 2 * plain.p50 + 5 },
        { goal: 'p99 under the shapes ≤ 2× p99 under plain bodies (+5 ms)', measured: `${shaped.p99} against ${plain.p99} ms`, met: shaped.p99 <= 2 * plain.p99 + 5 },
      ],
      answered503: 0,
      // Per GET of the other business; the stack's processes parse the attack too (the attacker's own process is not counted).
      cpu: { 'under plain bodies': cpu.plain.per(count), 'under the shapes': cpu.shaped.per(count) },
      engine: stack.engine,
    });
  } finally {
    await doors.stop();
    await stack.stop();
  }
}
