import { Client } from '@temporalio/client';
import { RAW_TASK_QUEUE, startRawWorker } from '../baseline/worker';
import { cpuAccumulator } from '../cpu';
import { profileDuring } from '../cpu-profile';
import { printResult, ratio, type ScenarioResult } from '../report';
import { expectStatus, measure, startBenchStack } from '../stack';

/*
 * `npm run bench -- assign [requests] [concurrency] [rounds]`: POST …/assign-agents with one agent on a
 * client that has none (a new assignment: the request's workflow and the pair's expiry workflow)
 * against a raw start-and-wait of a workflow running one local activity (one INSERT), in alternating
 * rounds on the same server.
 */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(args: string[]): Promise<ScenarioResult> {
  const [requests = 200, concurrency = 1, rounds = 3] = args.map(Number);
  const stack = await startBenchStack();
  const raw = await startRawWorker(stack);
  try {
    const { api, path } = stack;
    const rawClient = new Client({ connection: stack.temporal.connection });
    await expectStatus(api.POST('/ext/v2/{businessname}/agents', { params: { path }, body: { _id: 'agent-1' } }), 201);
    const clients = (rounds + 1) * requests;
    await measure(clients, 10, (i) => expectStatus(api.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: `client-${i}` } }), 201));
    let nextClient = 0;
    const assign = () =>
      expectStatus(
        api.POST('/ext/v2/{businessname}/clients/{_id}/assign-agents', { params: { path: { ...path, _id: `client-${nextClient++}` } }, body: { agents: [{ agent: 'agent-1' }] } }),
        200,
      );
    const rawAssign = (id: string) => rawClient.workflow.execute('rawAssign', { taskQueue: RAW_TASK_QUEUE, workflowId: id, args: [id] }).then(() => undefined);

    await measure(Math.min(requests, 30), concurrency, () => assign()); // warm-up
    await measure(30, concurrency, (i) => rawAssign(`warm-${i}`));
    const rawRounds = [];
    const projectRounds = [];
    const rawCpu = cpuAccumulator();
    const projectCpu = cpuAccumulator();
    // With BENCH_CPU_PROF_DIR, the last round of each is also profiled (this process: the bench's client, API and worker).
    const profiles: Record<string, unknown> = {};
    const profiled = <T>(side: string, last: boolean, work: () => Promise<T>) =>
      last ? profileDuring(`assign-${side}-${stack.engine}`, work, (summary) => (profiles[side] = summary)) : work();
    for (let round = 0; round < rounds; round++) {
      const last = round === rounds - 1;
      rawRounds.push(await rawCpu.during(() => profiled('baseline', last, () => measure(requests, concurrency, (i) => rawAssign(`raw-${round}-${i}`)))));
      projectRounds.push(await projectCpu.during(() => profiled('project', last, () => measure(requests, concurrency, () => assign()))));
    }
    const pick = (xs: { p50: number; p99: number; perSecond: number }[]) => ({
      p50Median: median(xs.map((x) => x.p50)),
      p99Median: median(xs.map((x) => x.p99)),
      perSecondMedian: median(xs.map((x) => x.perSecond)),
    });
    const baseline = pick(rawRounds);
    const project = pick(projectRounds);
    const p50Ratio = ratio(project.p50Median, baseline.p50Median);
    return printResult({
      scenario: 'assign',
      what: `${rounds} alternating rounds of ${requests} requests at concurrency ${concurrency}, one agent, new assignments; embedded stack, one process, ${stack.engine === 'server' ? 'Temporal server engine on PostgreSQL' : 'dev server on SQLite (WAL)'}`,
      baseline: { label: 'raw start-and-wait, one local activity (one INSERT)', figures: { ...baseline, rounds: rawRounds } },
      project: { label: 'POST /clients/{_id}/assign-agents, one agent', figures: { ...project, rounds: projectRounds } },
      ratios: { latencyP50: p50Ratio, latencyP99: ratio(project.p99Median, baseline.p99Median), throughput: ratio(project.perSecondMedian, baseline.perSecondMedian) },
      goals: [{ goal: 'assign ≤ 1.3× raw start-and-wait (p50 latency)', measured: `${p50Ratio}×`, met: p50Ratio <= 1.3 }],
      answered503: stack.busy.answered503,
      // Every round of each side, the benchmark's client included (API and worker run in this process).
      cpu: { baseline: rawCpu.per(rounds * requests), project: projectCpu.per(rounds * requests) },
      engine: stack.engine,
      ...(Object.keys(profiles).length && { notes: { cpuProfileSelfTime: profiles } }),
    });
  } finally {
    await raw.stop();
    await stack.stop();
  }
}
