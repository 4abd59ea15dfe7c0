import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../src/net/free-port';
import { PROJECT_ROOT } from '../../src/paths';
import { retryAfterSeconds } from '../busy-retry';
import { startDeliveryReceiver } from '../delivery-receiver';
import { deployedProcess, waitReady, type DeployedProcess } from '../processes';
import { startCpuMeter, type CpuPerItem } from '../cpu';
import { printResult, type ScenarioResult } from '../report';
import { distribution, expectStatus, measure, sleep, startBenchStack } from '../stack';

/*
 * `npm run bench -- scale-out [messages] [assignEveryMs]`: the production shape scaled out on one
 * machine: the Temporal server engine on PostgreSQL, two API processes behind a round-robin client and
 * two worker processes (`node dist/…`), the webhook provider posting to a receiver here that counts
 * POSTs per message id (the Idempotency-Key) and their bodies. `messages` messages are accepted ahead of one shared second (POST /messages
 * with a delay), assign-agents runs every `assignEveryMs` throughout, and once deliveries are under way
 * one worker is killed with SIGKILL and started again. Reports every status, lateness against send_at,
 * lost (accepted, never delivered before the deadline) and duplicated (posted more than once) messages.
 */
const log = (line: string) => console.error(`[scale-out] ${line}`);

const CLIENTS = 200;
/** The worker is started again this long after it was killed. */
const DOWN_MS = 5_000;
/** Deliveries must all have arrived this long after the due second. */
const DELIVERY_DEADLINE_MS = 300_000;
/** Then the receiver keeps listening this long for late second POSTs. */
const DUPLICATE_WATCH_MS = 15_000;

type Statuses = Record<string, number>;
const count = (statuses: Statuses, key: string | number) => (statuses[key] = (statuses[key] ?? 0) + 1);
/** 5xx answers other than 503-with-Retry-After: each one is a defect. */
const defects = (statuses: Statuses) => Object.entries(statuses).filter(([s]) => /^5/.test(s) && s !== '503').reduce((n, [, k]) => n + k, 0) + (statuses['503 without Retry-After'] ?? 0);

export async function run(args: string[]): Promise<ScenarioResult> {
  const [messages = 1000, everyMs = 250] = args.map(Number);
  // This scenario is about the production engine: the stack's Temporal is the server on PostgreSQL.
  process.env.TEMPORAL_ENGINE = 'server';
  log('building dist/ (npm run build, when something changed)');
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-if-changed.js')], { stdio: 'inherit' });
  const receiver = await startDeliveryReceiver();
  const stack = await startBenchStack({ inProcess: false });
  const env = { ...stack.env, LOG_LEVEL: 'warn', NODE_ENV: 'development', MESSAGE_PROVIDER: 'webhook', MESSAGE_WEBHOOK_URL: receiver.url };
  const apiPorts = [await freePort(), await freePort()];
  const workerPorts = [await freePort(), await freePort()];
  const apis = apiPorts.map((port, i) => deployedProcess(`api-${i + 1}`, 'api', { ...env, PORT: String(port), API_METRICS_PORT: '0' }, log));
  const workers = workerPorts.map((port, i) => deployedProcess(`worker-${i + 1}`, 'worker', { ...env, WORKER_HTTP_PORT: String(port) }, log));
  const processes: DeployedProcess[] = [...apis, ...workers];
  try {
    for (const p of processes) p.start();
    const baseUrls = apiPorts.map((port) => `http://127.0.0.1:${port}`);
    await Promise.all([...apis.map((a, i) => waitReady(`${baseUrls[i]}/readyz`, a)), ...workers.map((w, i) => waitReady(`http://127.0.0.1:${workerPorts[i]}/healthz`, w))]);
    log('two APIs and two workers are up');
    // Round robin over the two APIs; what is measured sees every 503 itself.
    const measured = baseUrls.map((url) => stack.clientFor(url, { retryBusy: false }));
    const setup = baseUrls.map((url) => stack.clientFor(url));
    let turn = 0;
    const nextApi = () => measured[turn++ % measured.length];
    const { path } = stack;
    for (const agent of ['agent-1', 'agent-2']) await expectStatus(setup[0].POST('/ext/v2/{businessname}/agents', { params: { path }, body: { _id: agent } }), 201);
    await measure(CLIENTS, 10, (i) => expectStatus(setup[i % 2].POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: `client-${i}`, phone: '+14155550100' } }), 201));

    // Assign traffic from now until the deliveries are counted.
    const assignStatuses: Statuses = {};
    const assignMs: number[] = [];
    let assigning = true;
    const assignPace = (async () => {
      const inFlight: Promise<void>[] = [];
      for (let n = 0; assigning; n++) {
        const t0 = performance.now();
        inFlight.push(
          nextApi()
            .POST('/ext/v2/{businessname}/clients/{_id}/assign-agents', { params: { path: { ...path, _id: `client-${n % CLIENTS}` } }, body: { agents: [{ agent: 'agent-1' }, { agent: 'agent-2' }] } })
            .then(({ response }) => {
              count(assignStatuses, response.status === 503 && !response.headers.get('retry-after') ? '503 without Retry-After' : response.status);
              if (response.status === 200) assignMs.push(performance.now() - t0);
            })
            .catch((error: Error) => void count(assignStatuses, `network: ${error.message}`)),
        );
        await sleep(everyMs);
      }
      await Promise.all(inFlight);
    })();

    // The burst: every message due within one second, accepted ahead of it.
    const leadMs = (10 + messages / 20) * 1000;
    const dueAt = Date.now() + leadMs;
    const due = (i: number) => dueAt + Math.floor((i * 1000) / messages);
    log(`accepting ${messages} messages due in ${leadMs / 1000} s, through both APIs`);
    const acceptStatuses: Statuses = {};
    const accepted: string[] = [];
    const cpu: Record<string, CpuPerItem> = {};
    let meter = startCpuMeter();
    const acceptRun = await measure(messages, 10, async (i) => {
      for (;;) {
        const delay = `PT${(Math.max(due(i) - Date.now(), 0) / 1000).toFixed(3)}S`;
        const { data, response } = await nextApi().POST('/ext/v2/{businessname}/messages', {
          params: { path },
          body: { message_type: 'text', client: `client-${i % CLIENTS}`, text_message: `Scale-out ${i}`, delay },
        });
        const retryAfter = response.headers.get('retry-after');
        count(acceptStatuses, response.status === 503 && !retryAfter ? '503 without Retry-After' : response.status);
        if (response.status === 202 && data) {
          accepted.push(data._id);
          return;
        }
        if (response.status !== 503 || !retryAfter) return;
        await sleep(retryAfterSeconds(retryAfter) * 1000);
      }
    });
    // Assigns run beside both phases: their CPU is in these figures too.
    cpu['accept (per accepted message)'] = meter.per(Math.max(accepted.length, 1));
    meter = startCpuMeter();
    const slackS = +((dueAt - Date.now()) / 1000).toFixed(1);
    log(`accepted ${accepted.length} (${JSON.stringify(acceptStatuses)}), ${slackS} s before the due second`);
    const acceptedSet = new Set(accepted);
    const deliveredCount = () => accepted.filter((id) => receiver.received.has(id)).length;

    // Kill one worker once a tenth of the burst has arrived (deliveries under way), start it again DOWN_MS later.
    const killAfter = Math.max(1, Math.floor(accepted.length / 10));
    while (deliveredCount() < killAfter && Date.now() < dueAt + DELIVERY_DEADLINE_MS) await sleep(50);
    const killedAt = Date.now();
    const deliveredAtKill = deliveredCount();
    await workers[0].kill9();
    log(`killed worker-1 (pid ${workers[0].child.pid}) with SIGKILL after ${deliveredAtKill} deliveries`);
    await sleep(DOWN_MS);
    const restartedAt = Date.now();
    workers[0].start();
    await waitReady(`http://127.0.0.1:${workerPorts[0]}/healthz`, workers[0]);
    const readyAt = Date.now();
    log(`worker-1 started again (pid ${workers[0].child.pid}), healthy ${readyAt - restartedAt} ms later`);

    let lastLog = 0;
    while (deliveredCount() < accepted.length && Date.now() < dueAt + DELIVERY_DEADLINE_MS) {
      if (Date.now() - lastLog > 5000) {
        lastLog = Date.now();
        log(`delivered ${deliveredCount()}/${accepted.length}`);
      }
      await sleep(500);
    }
    const allDeliveredAt = Date.now();
    cpu['until the last delivery, kill and restart included (per delivered message)'] = meter.per(Math.max(deliveredCount(), 1));
    await sleep(DUPLICATE_WATCH_MS);
    assigning = false;
    await assignPace;

    const lost = accepted.filter((id) => !receiver.received.has(id));
    const duplicated = accepted.filter((id) => (receiver.received.get(id)?.posts ?? 0) > 1);
    // A repeat with the same Idempotency-Key and the same body is one delivery to a receiver that honours the key.
    const differentBodies = duplicated.filter((id) => receiver.received.get(id)!.bodies.size > 1);
    const repeats = duplicated.map((id) => receiver.received.get(id)!.at.map((t) => +((t - killedAt) / 1000).toFixed(2)));
    const strangers = [...receiver.received.keys()].filter((id) => !acceptedSet.has(id)).length;
    const rows = await stack.prisma.message.findMany({ where: { id: { in: accepted } }, select: { id: true, sendAt: true, status: true, attempts: true } });
    const statusesInDb: Statuses = {};
    for (const r of rows) count(statusesInDb, r.status);
    const latenessS = rows.filter((r) => receiver.received.has(r.id)).map((r) => (receiver.received.get(r.id)!.firstAt - r.sendAt.getTime()) / 1000);
    const lateness = distribution(latenessS, 2);
    const firstDueAt = Math.min(...rows.map((r) => r.sendAt.getTime()));
    const relS = (t: number) => +((t - firstDueAt) / 1000).toFixed(2);
    const timeline = {
      killedSAfterDue: relS(killedAt),
      deliveredBeforeKill: deliveredAtKill,
      restartedSAfterDue: relS(restartedAt),
      restartedHealthySAfterDue: relS(readyAt),
      lastDeliverySAfterDue: relS(Math.max(...[...receiver.received.values()].map((r) => r.firstAt))),
    };
    const acceptDefects = defects(acceptStatuses);
    const assignDefects = defects(assignStatuses);
    return printResult({
      scenario: 'scale-out',
      what: `${messages} messages due within one second (accepted ${slackS} s ahead through 2 APIs, round robin, concurrency 10), assign-agents every ${everyMs} ms; 2 workers, worker-1 killed with SIGKILL during the deliveries and started again ${DOWN_MS / 1000} s later; Temporal server engine on PostgreSQL, webhook provider`,
      baseline: { label: 'none: this run counts losses and duplicates under a worker crash; no raw counterpart', figures: {} },
      project: {
        label: 'POST /messages through two APIs, delivered by two workers, one killed',
        figures: {
          acceptStatuses,
          acceptPerSecond: acceptRun.perSecond,
          assignStatuses,
          assignMs: distribution(assignMs),
          latenessS: lateness,
          accepted: accepted.length,
          delivered: accepted.length - lost.length,
          lost: lost.length,
          duplicated: duplicated.length,
          ...timeline,
        },
      },
      ratios: {},
      goals: [
        { goal: 'nothing lost', measured: `${lost.length} of ${accepted.length} accepted never delivered within ${DELIVERY_DEADLINE_MS / 1000} s of the due second`, met: lost.length === 0 && accepted.length > 0 },
        { goal: 'nothing twice', measured: `${duplicated.length} posted more than once (watched ${DUPLICATE_WATCH_MS / 1000} s after the last), ${differentBodies.length} of them with another body`, met: duplicated.length === 0 },
        {
          goal: 'nothing twice for a receiver that honours Idempotency-Key (every repeat: same key, same body)',
          measured: `${differentBodies.length} delivered twice`,
          met: differentBodies.length === 0,
        },
        { goal: 'no 5xx but 503 with Retry-After', measured: `${acceptDefects} on accept, ${assignDefects} on assign`, met: acceptDefects + assignDefects === 0 },
      ],
      answered503: (acceptStatuses[503] ?? 0) + (assignStatuses[503] ?? 0),
      cpu,
      notes: {
        statusesInDb,
        attemptsAbove1: rows.filter((r) => r.attempts > 1).length,
        drainSeconds: +((allDeliveredAt - firstDueAt) / 1000).toFixed(1),
        postsFromOtherIds: strangers,
        unkeyedPosts: receiver.unkeyed(),
        lostIds: lost.slice(0, 5),
        duplicatedIds: duplicated.slice(0, 5),
        /** Each repeated id's POSTs, in seconds after the kill (negative: before it). */
        repeatedPostsSAfterKill: repeats.slice(0, 10),
      },
    });
  } finally {
    for (const p of processes) await p.stop().catch((error: Error) => log(`stopping ${p.name}: ${error.message}`));
    await stack.stop();
    await receiver.close();
  }
}
