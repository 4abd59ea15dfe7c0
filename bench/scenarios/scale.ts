import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assignAgentsRequest } from '../../src/use-cases/assignments/assign';
import { sendMessageRequest } from '../../src/use-cases/messages/accept';
import { freePort } from '../../src/net/free-port';
import { PROJECT_ROOT } from '../../src/paths';
import { startCpuMeter, type CpuPerItem } from '../cpu';
import { distEntryPath, type DistEntry } from '../processes';
import { printResult, ratio, type ScenarioResult } from '../report';
import { expectStatus, measure, sleep, startBenchStack, type BenchStack } from '../stack';

/*
 * `npm run bench -- scale [pendingMessages] [activeAssignments] [concurrency] [agentsPerRequest]`: the
 * production shape on one machine (the API and the worker as their own processes, `node dist/…`, on
 * a fresh PostgreSQL and Temporal, either engine), loaded with active assignments, then pending messages
 * (delay 30 days), through the use cases the routes call (`assignAgentsRequest`, `sendMessageRequest`), in
 * this process, without HTTP. Reports each process's RSS and Temporal's storage as the load grows, per
 * pending item and per kind (active assignment, pending message), and the API's accept rate over HTTP
 * before and after the load.
 */
const log = (line: string) => console.error(`[scale] ${line}`);

const rssMbOf = (pid: number) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? +(Number(match[1]) / 1024).toFixed(1) : NaN;
};

function startProcess(entry: DistEntry, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [distEntryPath(entry)], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  child.once('exit', (code, signal) => code !== 0 && signal !== 'SIGTERM' && log(`${entry} exited: ${code ?? signal}`));
  return child;
}

async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(20_000).then(() => child.kill('SIGKILL'))]);
}

async function acceptRate(stack: BenchStack, baseUrl: string, requests: number, tag: string) {
  const api = stack.clientFor(baseUrl);
  const path = stack.path;
  await measure(20, 5, (i) =>
    expectStatus(api.POST('/ext/v2/{businessname}/messages', { params: { path }, body: { message_type: 'text', client: 'client-0', text_message: `warm ${tag} ${i}`, delay: '30d' } }), 202),
  );
  return measure(requests, 10, (i) =>
    expectStatus(api.POST('/ext/v2/{businessname}/messages', { params: { path }, body: { message_type: 'text', client: 'client-0', text_message: `${tag} ${i}`, delay: '30d' } }), 202),
  );
}

export async function run(args: string[]): Promise<ScenarioResult> {
  const [pendingTarget = 100_000, assignmentTarget = 100_000, concurrency = 16, agentsPerRequest = 10] = args.map(Number);
  log('building dist/ (npm run build, when something changed)');
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-if-changed.js')], { stdio: 'inherit' });
  const stack = await startBenchStack({ inProcess: false });
  const apiPort = await freePort();
  const env = { ...stack.env, LOG_LEVEL: 'warn', MESSAGE_PROVIDER: 'log', NODE_ENV: 'development' };
  const worker = startProcess('worker', { ...env, WORKER_HTTP_PORT: String(await freePort()) });
  const apiProcess = startProcess('api', { ...env, PORT: String(apiPort), API_METRICS_PORT: '0' });
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  try {
    for (;;) {
      if (await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false)) break;
      if (apiProcess.exitCode !== null || worker.exitCode !== null) throw new Error('the API or the worker process exited');
      await sleep(200);
    }
    const { prisma, scope } = stack;
    const agents = Array.from({ length: agentsPerRequest }, (_, i) => ({ id: `agent-${i}`, name: null }));
    await prisma.agent.createMany({ data: agents.map((a) => ({ ...scope, ...a })) });
    const requests = Math.ceil(assignmentTarget / agentsPerRequest);
    // Clients are plain rows (no workflow): written in bulk, the figures are about what follows.
    for (let from = 0; from < Math.max(requests, 1); from += 5000) {
      await prisma.client.createMany({ data: Array.from({ length: Math.min(5000, requests - from) || 1 }, (_, i) => ({ ...scope, id: `client-${from + i}`, phone: '+14155550100' })) });
    }
    await sleep(3000);

    const samples: Record<string, number>[] = [];
    const sample = async (phase: string, pending: number, assignments: number) => {
      const figures = { t: Math.round(performance.now() / 1000), pending, assignments, workerRssMb: rssMbOf(worker.pid!), apiRssMb: rssMbOf(apiProcess.pid!), temporalMb: +((await stack.temporalStorageBytes()) / 2 ** 20).toFixed(1) };
      samples.push(figures);
      log(`${phase} ${JSON.stringify(figures)}`);
      return figures;
    };
    const empty = await sample('empty', 0, 0);
    const cpu: Record<string, CpuPerItem> = {};
    let meter = startCpuMeter();
    const emptyAccept = await acceptRate(stack, baseUrl, 300, 'empty');
    cpu['accept, empty (per request)'] = meter.per(320);
    const storageEmpty = await stack.storageBreakdown();
    log(`accept on the empty system: ${JSON.stringify(emptyAccept)}`);
    const afterEmptyAccept = await sample('after accept', 0, 0);

    // The loader is not traffic to push back on: it skips the API's gates and loads as fast as Temporal takes it.
    const deps = { ...stack.services, admission: undefined, assignTimeoutMs: 60_000 };
    const loadStarted = performance.now();
    meter = startCpuMeter();
    let messages = 0;
    let assignments = 0;
    let failures = 0;
    const step = Math.max(1000, Math.round((pendingTarget + assignmentTarget) / 20));
    let nextSample = step;
    // Assignments first, then messages, each kind's storage measured apart; within a phase, as traffic would arrive.
    let nextMessage = 0;
    let nextRequest = 0;
    // A load refused (Temporal busy) is tried again, as a client would: the figures are for the full load.
    const retryMessages: number[] = [];
    const retryRequests: number[] = [];
    const loadUpTo = (messageTarget: number, requestTarget: number) => Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (;;) {
          // Whichever kind is behind in its share of the target goes next.
          const messagesLeft = nextMessage < messageTarget || retryMessages.length > 0;
          const requestsLeft = nextRequest < requestTarget || retryRequests.length > 0;
          const wantMessage = messagesLeft && (!requestsLeft || nextMessage / messageTarget <= nextRequest / requestTarget);
          if (!wantMessage && !requestsLeft) return;
          const i = wantMessage ? (retryMessages.shift() ?? nextMessage++) : (retryRequests.shift() ?? nextRequest++);
          try {
            if (wantMessage) {
              await sendMessageRequest(deps, scope, { message_type: 'text', client: `client-${i % Math.max(requests, 1)}`, text_message: `Pending ${i}`, delay: '30d' }, undefined);
              messages++;
            } else {
              const result = await assignAgentsRequest(deps, scope, `client-${i}`, { agents: agents.map((a) => ({ agent: a.id })) });
              assignments += result.assignments.length;
            }
          } catch (error) {
            (wantMessage ? retryMessages : retryRequests).push(i);
            failures++;
            if (failures <= 5) log(`load failure: ${(error as Error).message}`);
            await sleep(1000);
          }
          if (messages + assignments >= nextSample) {
            nextSample += step;
            await sample('loading', messages, assignments);
          }
        }
      }),
    );
    await loadUpTo(0, requests);
    cpu['load: assign requests (per request)'] = meter.per(nextRequest);
    const assignSeconds = (performance.now() - loadStarted) / 1000;
    log(`loaded ${assignments} assignments in ${assignSeconds.toFixed(0)} s; letting the worker settle`);
    await sleep(30_000);
    const assignmentsLoaded = await sample('assignments loaded', messages, assignments);
    const storageAssignmentsLoaded = await stack.storageBreakdown();
    const messagesStarted = performance.now();
    meter = startCpuMeter();
    await loadUpTo(pendingTarget, requests);
    cpu['load: pending messages (per message)'] = meter.per(messages);
    const loadSeconds = assignSeconds + (performance.now() - messagesStarted) / 1000;
    log(`loaded ${messages} messages and ${assignments} assignments in ${loadSeconds.toFixed(0)} s; letting the worker settle`);
    await sleep(30_000);
    const loaded = await sample('loaded', messages, assignments);
    const storageLoaded = await stack.storageBreakdown();
    meter = startCpuMeter();
    const loadedAccept = await acceptRate(stack, baseUrl, 300, 'loaded');
    cpu['accept, loaded (per request)'] = meter.per(320);
    log(`accept on the loaded system: ${JSON.stringify(loadedAccept)}`);
    const end = await sample('end', messages, assignments);

    const items = messages + assignments;
    const storagePerItemKb = +(((loaded.temporalMb - afterEmptyAccept.temporalMb) * 1024) / Math.max(items, 1)).toFixed(1);
    const kbPer = (mb: number, count: number) => +((mb * 1024) / Math.max(count, 1)).toFixed(1);
    // Storage per active assignment (Temporal's databases or SQLite file; the app's database beside it) and per pending message.
    const perKind = {
      temporalKbPerAssignment: kbPer(assignmentsLoaded.temporalMb - afterEmptyAccept.temporalMb, assignments),
      appDbKbPerAssignment: kbPer(storageAssignmentsLoaded.bench.total - storageEmpty.bench.total, assignments),
      temporalKbPerPendingMessage: kbPer(loaded.temporalMb - assignmentsLoaded.temporalMb, messages),
      appDbKbPerPendingMessage: kbPer(storageLoaded.bench.total - storageAssignmentsLoaded.bench.total, messages),
    };
    const peak = (key: string) => Math.max(...samples.map((s) => s[key]));
    const perItem = (key: 'workerRssMb' | 'apiRssMb') => (loaded[key] - afterEmptyAccept[key]) / Math.max(items, 1);
    const fullItems = pendingTarget + assignmentTarget;
    const extrapolated = {
      workerRssMb: Math.round(afterEmptyAccept.workerRssMb + perItem('workerRssMb') * fullItems),
      apiRssMb: Math.round(afterEmptyAccept.apiRssMb + perItem('apiRssMb') * fullItems),
      temporalGb: +(((afterEmptyAccept.temporalMb + (storagePerItemKb / 1024) * fullItems)) / 1024).toFixed(2),
    };
    const acceptRatio = ratio(loadedAccept.perSecond, emptyAccept.perSecond);
    const reached = messages >= pendingTarget && assignments >= assignmentTarget;
    const workerPeak = peak('workerRssMb');
    const apiPeak = peak('apiRssMb');
    return printResult({
      scenario: 'scale',
      what: `${messages} pending messages + ${assignments} active assignments (of ${pendingTarget} + ${assignmentTarget}) loaded through the use cases in ${loadSeconds.toFixed(0)} s at concurrency ${concurrency}; API and worker as separate processes (node dist/…)`,
      baseline: { label: 'the empty system', figures: { acceptPerSecond: emptyAccept.perSecond, acceptP50Ms: emptyAccept.p50, workerRssMb: empty.workerRssMb, apiRssMb: empty.apiRssMb, temporalMb: empty.temporalMb } },
      project: {
        label: 'the loaded system',
        figures: { acceptPerSecond: loadedAccept.perSecond, acceptP50Ms: loadedAccept.p50, workerRssMb: loaded.workerRssMb, apiRssMb: loaded.apiRssMb, workerRssPeakMb: workerPeak, apiRssPeakMb: apiPeak, temporalMb: loaded.temporalMb, temporalKbPerItem: storagePerItemKb, ...perKind },
      },
      ratios: { acceptRate: acceptRatio },
      goals: [
        { goal: 'worker RSS ≤ 1 GiB', measured: `${workerPeak} MB peak${reached ? '' : `, ${extrapolated.workerRssMb} MB extrapolated to ${fullItems} items`}`, met: workerPeak <= 1024 && (reached || extrapolated.workerRssMb <= 1024) },
        { goal: 'API RSS ≤ 300 MB', measured: `${apiPeak} MB peak${reached ? '' : `, ${extrapolated.apiRssMb} MB extrapolated`}`, met: apiPeak <= 300 && (reached || extrapolated.apiRssMb <= 300) },
        { goal: 'accept rate within 20% of the empty system', measured: `${acceptRatio}×`, met: acceptRatio >= 0.8 },
        { goal: 'reached the full load', measured: `${messages} + ${assignments}`, met: reached },
        ...(stack.engine === 'server' ? [{ goal: 'storage per active assignment on the server engine ≤ 8 KB (issue 38)', measured: `${perKind.temporalKbPerAssignment} KB in Temporal's databases`, met: perKind.temporalKbPerAssignment <= 8 }] : []),
      ],
      answered503: stack.busy.answered503,
      cpu,
      engine: stack.engine,
      notes: { storageMbEmpty: storageEmpty, storageMbAssignmentsLoaded: storageAssignmentsLoaded, storageMbLoaded: storageLoaded, loadPerSecond: +(items / loadSeconds).toFixed(1), failures, extrapolatedToFull: extrapolated, samples, endSample: end },
    });
  } finally {
    await stopProcess(apiProcess);
    await stopProcess(worker);
    await stack.stop();
  }
}
