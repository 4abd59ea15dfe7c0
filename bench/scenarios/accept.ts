import { Client } from '@temporalio/client';
import { startFloorRoute } from '../baseline/floor-route';
import { RAW_TASK_QUEUE, startRawWorker } from '../baseline/worker';
import { startCpuMeter, type CpuPerItem } from '../cpu';
import { profileDuring } from '../cpu-profile';
import { printResult, ratio, type ScenarioResult } from '../report';
import { expectStatus, measure, startBenchStack } from '../stack';

/*
 * `npm run bench -- accept [requests] [concurrency] [rounds]`: POST /messages (a delay of an hour, so
 * the figure is the accept path itself) against a raw `workflow.start` of a workflow with the same
 * start delay on the same server, at the same concurrency, in alternating rounds. Then once each sent
 * now: the message (accept and delivery) against a raw start whose workflow runs one activity.
 * A second baseline, the floor, is a bare HTTP route doing one INSERT and the same start
 * (bench/baseline/floor-route.ts): the least any durable accept does over HTTP.
 */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(args: string[]): Promise<ScenarioResult> {
  const [requests = 300, concurrency = 10, rounds = 3] = args.map(Number);
  const stack = await startBenchStack();
  const raw = await startRawWorker(stack);
  const floor = await startFloorRoute(stack.prisma, stack.temporal);
  try {
    const { api, path } = stack;
    const rawClient = new Client({ connection: stack.temporal.connection });
    await expectStatus(api.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: 'client-1', phone: '+14155550100' } }), 201);
    const post = (i: number, delay: string | undefined) =>
      expectStatus(api.POST('/ext/v2/{businessname}/messages', { params: { path }, body: { message_type: 'text', client: 'client-1', text_message: `Message ${i}`, delay } }), 202);
    const rawStart = (id: string, startDelay?: '1h') =>
      rawClient.workflow.start('rawDelayedSend', { taskQueue: RAW_TASK_QUEUE, workflowId: id, args: [id], startDelay }).then(() => undefined);

    await measure(30, 5, (i) => post(-i, '1h')); // warm-up
    await measure(30, 5, (i) => rawStart(`warm-${i}`, '1h'));
    const floorPost = (i: number) => floor.post({ message_type: 'text', client: 'client-1', text_message: `Message ${i}`, delay: '1h' });
    await measure(30, 5, (i) => floorPost(-i));
    const rawRounds = [];
    const floorRounds = [];
    const projectRounds = [];
    // CPU per request accepted over every process of the stack, measured on the last round of each.
    const cpu: Record<string, CpuPerItem> = {};
    // With BENCH_CPU_PROF_DIR, the last round of each is also profiled (this process: the bench's client, API and worker).
    const profiles: Record<string, unknown> = {};
    const metered = async <T>(phase: string, last: boolean, body: () => Promise<T>) => {
      const meter = startCpuMeter();
      const result = await (last ? profileDuring(`accept-${phase}-${stack.engine}`, body, (summary) => (profiles[phase] = summary)) : body());
      if (last) cpu[phase] = meter.per(requests);
      return result;
    };
    for (let round = 0; round < rounds; round++) {
      const last = round === rounds - 1;
      rawRounds.push(await metered('baseline', last, () => measure(requests, concurrency, (i) => rawStart(`raw-${round}-${i}`, '1h'))));
      floorRounds.push(await measure(requests, concurrency, (i) => floorPost(round * requests + i)));
      projectRounds.push(await metered('project', last, () => measure(requests, concurrency, (i) => post(round * requests + i, '1h'))));
    }
    const now = {
      raw: await measure(requests, concurrency, (i) => rawStart(`raw-now-${i}`)),
      project: await measure(requests, concurrency, (i) => post(-1000 - i, undefined)),
    };
    const rawRate = median(rawRounds.map((r) => r.perSecond));
    const floorRate = median(floorRounds.map((r) => r.perSecond));
    const projectRate = median(projectRounds.map((r) => r.perSecond));
    const acceptRatio = ratio(projectRate, rawRate);
    return printResult({
      scenario: 'accept',
      what: `${rounds} alternating rounds of ${requests} requests at concurrency ${concurrency}, delay 1 h; embedded stack (${stack.engine === 'server' ? 'Temporal server engine on PostgreSQL' : 'dev server on SQLite'}), one process`,
      baseline: { label: 'raw workflow.start with startDelay 1h', figures: { perSecondMedian: rawRate, rounds: rawRounds } },
      project: { label: 'POST /messages with delay 1h', figures: { perSecondMedian: projectRate, rounds: projectRounds } },
      ratios: { acceptRate: acceptRatio, acceptRateVsFloor: ratio(projectRate, floorRate), floorVsRaw: ratio(floorRate, rawRate), sendNowRate: ratio(now.project.perSecond, now.raw.perSecond) },
      goals: [{ goal: 'accept rate ≥ 0.95× raw workflow.start', measured: `${acceptRatio}×`, met: acceptRatio >= 0.95 }],
      answered503: stack.busy.answered503,
      cpu,
      engine: stack.engine,
      notes: { floor: { label: 'bare HTTP route: one INSERT + the same workflow.start', perSecondMedian: floorRate, rounds: floorRounds }, sendNow: now, ...(Object.keys(profiles).length && { cpuProfileSelfTime: profiles }) },
    });
  } finally {
    await floor.stop();
    await raw.stop();
    await stack.stop();
  }
}
