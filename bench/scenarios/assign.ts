import { Client } from '@temporalio/client';
import { rawClientAssign } from '../baseline/client-assign';
import { RAW_TASK_QUEUE, startRawWorker } from '../baseline/worker';
import { cpuAccumulator, type CpuPerItem } from '../cpu';
import { profileDuring } from '../cpu-profile';
import { printResult, ratio, type ScenarioResult } from '../report';
import { expectStatus, measure, startBenchStack } from '../stack';

/*
 * `npm run bench -- assign [requests] [concurrencies] [rounds]`: POST …/assign-agents with one agent,
 * for a new client (never assigned before) and for an open one (the same clients re-assigned), against
 * two raw baselines on the same server: a start-and-wait of a workflow running one local activity (one
 * INSERT), and Update-with-Start of a minimal client workflow (`bench-client/<n>`: an `assign` update
 * running the same local activity, one timer), for a new client and for an open one. Alternating
 * rounds per concurrency (`1,10` by default), each case's CPU per request over every process.
 */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The measured cases, in the order each round runs them. */
const CASES = {
  startAndWait: 'raw start-and-wait',
  uwsNew: 'raw UwS, new client',
  uwsOpen: 'raw UwS, open client',
  projectNew: 'project, new client',
  projectOpen: 'project, open client',
} as const;
type Case = keyof typeof CASES;

const ms = (seconds: number) => +(seconds * 1000).toFixed(1);

export async function run(args: string[]): Promise<ScenarioResult> {
  const requests = Number(args[0] ?? 200);
  const concurrencies = (args[1] ?? '1,10').split(',').map(Number);
  const rounds = Number(args[2] ?? 3);
  const stack = await startBenchStack();
  const raw = await startRawWorker(stack);
  try {
    const { api, path } = stack;
    const rawClient = new Client({ connection: stack.temporal.connection });
    await expectStatus(api.POST('/ext/v2/{businessname}/agents', { params: { path }, body: { _id: 'agent-1' } }), 201);
    const warmUp = Math.min(requests, 30);
    const clients = warmUp + concurrencies.length * rounds * requests;
    await measure(clients, 10, (i) => expectStatus(api.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: `client-${i}` } }), 201));
    let nextClient = 0;
    const assign = (client: number) =>
      expectStatus(api.POST('/ext/v2/{businessname}/clients/{_id}/assign-agents', { params: { path: { ...path, _id: `client-${client}` } }, body: { agents: [{ agent: 'agent-1' }] } }), 200);
    const rawAssign = (id: string) => rawClient.workflow.execute('rawAssign', { taskQueue: RAW_TASK_QUEUE, workflowId: id, args: [id] }).then(() => undefined);
    /** One round of each case: the open cases re-assign the clients the new cases just assigned. */
    const runners = (tag: string): Record<Case, (i: number) => Promise<void>> => {
      const first = nextClient;
      return {
        startAndWait: (i) => rawAssign(`raw-${tag}-${i}`),
        uwsNew: (i) => rawClientAssign(rawClient, `${tag}-${i}`, `${tag}-${i}/new`).then(() => undefined),
        uwsOpen: (i) => rawClientAssign(rawClient, `${tag}-${i}`, `${tag}-${i}/open`).then(() => undefined),
        projectNew: () => assign(nextClient++),
        projectOpen: (i) => assign(first + i),
      };
    };

    const warm = runners('warm');
    for (const c of Object.keys(CASES) as Case[]) await measure(warmUp, Math.min(5, warmUp), warm[c]);

    type Round = Awaited<ReturnType<typeof measure>>;
    type Figures = Record<Case, { p50: number; p99: number; perSecond: number; cpu: CpuPerItem }>;
    const byConcurrency: { concurrency: number; figures: Figures; rounds: Record<Case, Round[]> }[] = [];
    const profiles: Record<string, unknown> = {};
    for (const concurrency of concurrencies) {
      const roundsOf = Object.fromEntries(Object.keys(CASES).map((c) => [c, [] as Round[]])) as Record<Case, Round[]>;
      const cpuOf = Object.fromEntries(Object.keys(CASES).map((c) => [c, cpuAccumulator()])) as Record<Case, ReturnType<typeof cpuAccumulator>>;
      for (let round = 0; round < rounds; round++) {
        const last = round === rounds - 1;
        const run = runners(`c${concurrency}-${round}`);
        for (const c of Object.keys(CASES) as Case[]) {
          // With BENCH_CPU_PROF_DIR, the last round of each case is also profiled (this process: the bench's client, API and worker).
          const work = () => measure(requests, concurrency, run[c]);
          const profiled = last ? () => profileDuring(`assign-${c}-c${concurrency}-${stack.engine}`, work, (summary) => (profiles[`c${concurrency} ${c}`] = summary)) : work;
          roundsOf[c].push(await cpuOf[c].during(profiled));
        }
        console.error(`[assign] concurrency ${concurrency}, round ${round + 1} of ${rounds}: p50 ${(Object.keys(CASES) as Case[]).map((c) => `${c} ${roundsOf[c][round].p50}`).join(', ')}`);
      }
      const figures = Object.fromEntries(
        (Object.keys(CASES) as Case[]).map((c) => [
          c,
          { p50: median(roundsOf[c].map((x) => x.p50)), p99: median(roundsOf[c].map((x) => x.p99)), perSecond: median(roundsOf[c].map((x) => x.perSecond)), cpu: cpuOf[c].per(rounds * requests) },
        ]),
      ) as Figures;
      byConcurrency.push({ concurrency, figures, rounds: roundsOf });
    }

    const table = byConcurrency.flatMap(({ concurrency, figures }) =>
      (Object.keys(CASES) as Case[]).map((c) => {
        const cpu = figures[c].cpu.secondsPerItem;
        return {
          case: CASES[c],
          conc: concurrency,
          'p50 ms': figures[c].p50,
          'p99 ms': figures[c].p99,
          'req/s': figures[c].perSecond,
          'CPU ms/req: bench process': ms(cpu['bench/API+worker']),
          Temporal: ms(cpu.Temporal),
          PostgreSQL: ms(cpu.PostgreSQL),
          total: ms(cpu.total),
        };
      }),
    );
    const ratios: Record<string, number> = {};
    const goals: ScenarioResult['goals'] = [];
    for (const { concurrency, figures: f } of byConcurrency) {
      const at = `c${concurrency}`;
      const cpuTotal = (c: Case) => f[c].cpu.secondsPerItem.total;
      ratios[`${at}.newP50/startAndWait`] = ratio(f.projectNew.p50, f.startAndWait.p50);
      ratios[`${at}.newP50/uwsNew`] = ratio(f.projectNew.p50, f.uwsNew.p50);
      ratios[`${at}.openP50/uwsOpen`] = ratio(f.projectOpen.p50, f.uwsOpen.p50);
      ratios[`${at}.newCpu/uwsNew`] = ratio(cpuTotal('projectNew'), cpuTotal('uwsNew'));
      ratios[`${at}.openCpu/uwsOpen`] = ratio(cpuTotal('projectOpen'), cpuTotal('uwsOpen'));
      ratios[`${at}.uwsNewP50/startAndWait`] = ratio(f.uwsNew.p50, f.startAndWait.p50);
      const goal = (text: string, key: string, limit: number) => goals.push({ goal: `${text} ≤ ${limit}× (concurrency ${concurrency})`, measured: `${ratios[`${at}.${key}`]}×`, met: ratios[`${at}.${key}`] <= limit });
      goal('assign, new client, p50 vs raw start-and-wait', 'newP50/startAndWait', 1.3);
      goal('assign, new client, p50 vs raw UwS new client', 'newP50/uwsNew', 1.3);
      goal('assign, open client, p50 vs raw UwS open client', 'openP50/uwsOpen', 2);
      goal('assign, new client, CPU over every process vs raw UwS new client', 'newCpu/uwsNew', 1.5);
      goal('assign, open client, CPU over every process vs raw UwS open client', 'openCpu/uwsOpen', 2);
    }
    const summary = (cases: Case[]) =>
      Object.fromEntries(byConcurrency.flatMap(({ concurrency, figures }) => cases.map((c) => [`c${concurrency} ${c}`, { p50: figures[c].p50, p99: figures[c].p99, perSecond: figures[c].perSecond }])));
    return printResult({
      scenario: 'assign',
      what: `${rounds} alternating rounds of ${requests} requests per case at concurrency ${concurrencies.join(' and ')}, one agent; open client = the clients of the round's new case re-assigned; embedded stack, one process, ${stack.engine === 'server' ? 'Temporal server engine on PostgreSQL' : 'dev server on SQLite (WAL)'}`,
      baseline: { label: 'raw Temporal, one local activity (one INSERT): start-and-wait; Update-with-Start of bench-client/<n> (USE_EXISTING, one timer)', figures: summary(['startAndWait', 'uwsNew', 'uwsOpen']) },
      project: { label: 'POST /clients/{_id}/assign-agents, one agent', figures: summary(['projectNew', 'projectOpen']) },
      table,
      ratios,
      goals,
      answered503: stack.busy.answered503,
      // Every round of each case, the benchmark's client included (API and worker run in this process).
      cpu: Object.fromEntries(byConcurrency.flatMap(({ concurrency, figures }) => (Object.keys(CASES) as Case[]).map((c) => [`c${concurrency} ${c}`, figures[c].cpu]))),
      engine: stack.engine,
      notes: {
        roundP50s: Object.fromEntries(byConcurrency.flatMap(({ concurrency, rounds: r }) => (Object.keys(CASES) as Case[]).map((c) => [`c${concurrency} ${c}`, r[c].map((x) => x.p50)]))),
        ...(Object.keys(profiles).length && { cpuProfileSelfTime: profiles }) },
    });
  } finally {
    await raw.stop();
    await stack.stop();
  }
}
