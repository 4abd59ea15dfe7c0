import { DEFAULT_ADMISSION } from '../../src/starters/admission';
import { retryAfterSeconds } from '../busy-retry';
import { startCpuMeter, type CpuPerItem } from '../cpu';
import { printResult, ratio, type ScenarioResult } from '../report';
import { distribution, expectStatus, measure, sleep, startBenchStack, statusCounts, type BenchStack } from '../stack';

/*
 * `npm run bench -- isolation [burstMessages] [burstConcurrency] [assignEveryMs]`: assign-agents
 * requests at a steady pace (one every `assignEveryMs`, not waiting for each other) on the idle stack,
 * then during a burst of `burstMessages` POST /messages (delay 1 h, so they stay pending) from
 * `burstConcurrency` callers. A caller answered 503 waits its Retry-After and sends again, as a
 * well-behaved client does. Counts every status; 504s are the failure this scenario looks for.
 * `messagePlaces` overrides how many message accepts the API lets into Temporal at once.
 */
const log = (line: string) => console.error(`[isolation] ${line}`);

interface AssignSample {
  status: number;
  ms: number;
}

/** Fires one assign every `everyMs` until `until()` says stop; each on the next client of the pool. */
async function assignPace(stack: BenchStack & { measured: BenchStack['api'] }, everyMs: number, clients: number, start: number, until: () => boolean): Promise<AssignSample[]> {
  const { measured: api, path } = stack;
  const samples: Promise<AssignSample>[] = [];
  let n = 0;
  while (!until()) {
    const client = `client-${(start + n++) % clients}`;
    const t0 = performance.now();
    samples.push(
      api
        .POST('/ext/v2/{businessname}/clients/{_id}/assign-agents', { params: { path: { ...path, _id: client } }, body: { agents: [{ agent: 'agent-1' }, { agent: 'agent-2' }] } })
        .then(({ response }) => ({ status: response.status, ms: performance.now() - t0 })),
    );
    await sleep(everyMs);
  }
  return Promise.all(samples);
}

function assignFigures(samples: AssignSample[]) {
  return { ...distribution(samples.filter((s) => s.status === 200).map((s) => s.ms)), statuses: statusCounts(samples.map((s) => s.status)) };
}

export async function run(args: string[]): Promise<ScenarioResult> {
  const [burst = 10_000, burstConcurrency = 20, everyMs = 250, messagePlaces = DEFAULT_ADMISSION.messages.limit] = args.map(Number);
  const admission = { ...DEFAULT_ADMISSION, messages: { ...DEFAULT_ADMISSION.messages, limit: messagePlaces } };
  const benchStack = await startBenchStack({ admission });
  // What is measured counts every status itself, a 503 among them: its client hands 503s back.
  const stack = { ...benchStack, measured: benchStack.clientFor(benchStack.baseUrl, { retryBusy: false }) };
  try {
    const { api, path } = stack;
    for (const agent of ['agent-1', 'agent-2']) await expectStatus(api.POST('/ext/v2/{businessname}/agents', { params: { path }, body: { _id: agent } }), 201);
    const clients = 2000;
    await measure(clients, 10, (i) => expectStatus(api.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: `client-${i}`, phone: '+14155550100' } }), 201));
    await measure(20, 5, (i) => expectStatus(api.POST('/ext/v2/{businessname}/messages', { params: { path }, body: { message_type: 'text', client: 'client-0', text_message: `warm ${i}`, delay: '1h' } }), 202));

    log('baseline: assigns on the idle stack');
    const idleUntil = Date.now() + 15_000;
    const idleMeter = startCpuMeter();
    const idleSamples = await assignPace(stack, everyMs, clients, 0, () => Date.now() > idleUntil);
    const cpu: Record<string, CpuPerItem> = { 'idle (per assign)': idleMeter.per(idleSamples.length) };
    const idle = assignFigures(idleSamples);
    log(`idle: ${JSON.stringify(idle)}`);

    log(`burst: ${burst} messages from ${burstConcurrency} callers, assigns every ${everyMs} ms`);
    const messageStatuses: Record<string, number> = {};
    let sent = 0;
    let burstDone = false;
    const started = performance.now();
    const burstMeter = startCpuMeter();
    const burstRun = Promise.all(
      Array.from({ length: burstConcurrency }, async () => {
        while (sent < burst) {
          const i = sent++;
          for (;;) {
            const { response } = await stack.measured.POST('/ext/v2/{businessname}/messages', {
              params: { path },
              body: { message_type: 'text', client: `client-${i % clients}`, text_message: `Burst ${i}`, delay: '1h' },
            });
            messageStatuses[response.status] = (messageStatuses[response.status] ?? 0) + 1;
            if (response.status !== 503) break;
            await sleep(retryAfterSeconds(response.headers.get('retry-after')) * 1000);
          }
          if (i % 1000 === 0) log(`burst: ${i}/${burst}`);
        }
      }),
    ).finally(() => {
      burstDone = true;
    });
    const during = assignPace(stack, everyMs, clients, 1000, () => burstDone);
    await burstRun;
    const burstSeconds = (performance.now() - started) / 1000;
    const busySamples = await during;
    // Per request of either kind, 503s included: the burst's CPU is what its callers cost together.
    const requestsDuringBurst = Object.values(messageStatuses).reduce((a, n) => a + n, 0) + busySamples.length;
    cpu['burst (per request, messages and assigns)'] = burstMeter.per(requestsDuringBurst);
    const busy = assignFigures(busySamples);
    const pending = await stack.prisma.message.count({ where: { status: 'scheduled' } });
    const p99Ratio = ratio(busy.p99, idle.p99);
    const timeouts = busy.statuses[504] ?? 0;
    return printResult({
      scenario: 'isolation',
      what: `assign-agents (2 agents) every ${everyMs} ms, idle then during a burst of ${burst} POST /messages (delay 1 h) from ${burstConcurrency} callers; embedded stack, one process`,
      baseline: { label: 'assign-agents on the idle stack', figures: idle },
      project: { label: 'assign-agents during the burst', figures: busy },
      ratios: { assignP99: p99Ratio, assignP50: ratio(busy.p50, idle.p50) },
      goals: [
        { goal: 'assign p99 ≤ 1 s during the burst', measured: `${busy.p99} ms`, met: busy.p99 <= 1000 },
        { goal: 'zero 504s', measured: `${timeouts} of ${busy.count + Object.entries(busy.statuses).filter(([s]) => s !== '200').reduce((a, [, n]) => a + n, 0)}`, met: timeouts === 0 },
      ],
      answered503: stack.busy.answered503 + (messageStatuses[503] ?? 0) + (idle.statuses[503] ?? 0) + (busy.statuses[503] ?? 0),
      cpu,
      engine: stack.engine,
      notes: { admission, burstSeconds: +burstSeconds.toFixed(1), acceptedPerSecond: +((messageStatuses[202] ?? 0) / burstSeconds).toFixed(1), messageStatuses, pendingAfter: pending },
    });
  } finally {
    await benchStack.stop();
  }
}
