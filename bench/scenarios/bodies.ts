import pino from 'pino';
import { listen } from '../../src/api/http/server';
import { createApi } from '../../src/main/services';
import { cpuAccumulator } from '../cpu';
import { attack, attackFile, attacksOn, carrierDoors, CONNECTOR_SETTINGS, crmDoors, doorCarriers } from '../pathological-bodies';
import { printResult, ratio, type ScenarioResult } from '../report';
import { distribution, expectStatus, startBenchStack, type BenchStack } from '../stack';

/*
 * `npm run bench -- bodies [samples=50] [rounds=3]`: another business's GET /clients, one after the other,
 * while an attacker in another process posts 1 MB bodies of the shapes that make a naive parser quadratic
 * (pathological-bodies.ts) to every door that reads a body before it knows the caller: the CRMs' inbound
 * routes, with and without their credential, and the three carriers' callbacks (also at 99 kB, under their
 * 100 kB limit). The baseline is the same doors at the same pace with as many plain bytes; the rounds
 * alternate. A parser whose cost grows faster than the body shows as the ratio.
 */
const log = (line: string) => console.error(`[bodies] ${line}`);

/** The doors: the bench user's three connectors, and an API with each carrier. */
async function doorsOf(stack: BenchStack) {
  const path = stack.path;
  await expectStatus(stack.api.POST('/ext/v2/{businessname}/agents', { params: { path }, body: { _id: 'a1' } }), 201);
  const inbound = {} as Record<keyof typeof CONNECTOR_SETTINGS, string>;
  for (const crm of Object.keys(CONNECTOR_SETTINGS) as (keyof typeof CONNECTOR_SETTINGS)[]) {
    const { data, response } = await stack.api.PUT('/ext/v2/{businessname}/integrations/{crm}', { params: { path: { ...path, crm } }, body: { agents: ['a1'], settings: CONNECTOR_SETTINGS[crm] } });
    if (response.status !== 201) throw new Error(`PUT /integrations/${crm}: ${response.status}`);
    inbound[crm] = (data as { inbound_url: string }).inbound_url;
  }
  const servers: Awaited<ReturnType<typeof listen>>[] = [];
  const origins = {} as Record<keyof ReturnType<typeof doorCarriers>, string>;
  for (const [name, carrier] of Object.entries(doorCarriers())) {
    const server = await listen(createApi({ ...stack.services, carrier }, { log: () => undefined, logger: pino({ level: 'silent' }), publicBaseUrl: 'https://sms.example.test' }), 0, '127.0.0.1');
    servers.push(server);
    origins[name as keyof typeof origins] = `http://127.0.0.1:${server.port}`;
  }
  const crms = crmDoors(inbound);
  const carriers = carrierDoors(origins);
  return {
    attacks: attacksOn([...crms, ...carriers], carriers),
    doors: crms.length + carriers.length,
    stop: async () => {
      for (const server of servers) await server.stop();
    },
  };
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
    await expectStatus(stack.apiAs('other-user').POST('/ext/v2/{businessname}/clients', { params: { path: { businessname: 'other-business' } }, body: { _id: 'c1' } }), 201);
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
    const files = { plain: await attackFile(stack.dir, 'plain', doors.attacks, true), shaped: await attackFile(stack.dir, 'shaped', doors.attacks, false) };
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
