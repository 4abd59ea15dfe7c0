import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/net/free-port';
import { PROJECT_ROOT } from '../../src/paths';
import { cpuSnapshot, cpuSeconds, processCpuSeconds } from '../cpu';
import { startDeliveryReceiver } from '../delivery-receiver';
import { deployedProcess, waitReady, type DeployedProcess } from '../processes';
import { printResult, ratio, type ScenarioResult } from '../report';
import { distribution, expectStatus, measure, percentile, sleep, startBenchStack } from '../stack';

/*
 * `npm run bench -- campaign [perMessage=1000] [bulk=10000] [paced=10000] [rate=100]`: a campaign two
 * ways on one stack (PostgreSQL, Temporal, one API and one worker process from dist/, the webhook
 * provider posting to a receiver here that counts POSTs per message id):
 *   per-message: `perMessage` POST /messages due in the same second;
 *   bulk: POST /messages/batch in requests of 1,000, first 1,000 then `bulk` due in the same second, then
 *   `paced` with the worker restarted at MESSAGE_SEND_RATE_PER_SECOND=`rate`.
 * CPU is read from /proc for the API, the worker, Temporal and PostgreSQL (not this process, which is
 * the benchmark's client and receiver), from the first accept to the last delivery, per delivered message.
 */
const log = (line: string) => console.error(`[campaign] ${line}`);
const BATCH = 1000;

function rssMbOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? +(Number(match[1]) / 1024).toFixed(1) : 0;
  } catch {
    return 0;
  }
}

export async function run(args: string[]): Promise<ScenarioResult> {
  const [perMessage = 1000, bulk = 10_000, paced = 10_000, rate = 100] = args.map(Number);
  log('building dist/ (npm run build, when something changed)');
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-if-changed.js')], { stdio: 'inherit' });
  const receiver = await startDeliveryReceiver();
  const stack = await startBenchStack({ inProcess: false });
  const env = { ...stack.env, LOG_LEVEL: 'warn', NODE_ENV: 'development', MESSAGE_PROVIDER: 'webhook', MESSAGE_WEBHOOK_URL: receiver.url };
  const apiPort = await freePort();
  const workerPort = await freePort();
  const api = deployedProcess('api', 'api', { ...env, PORT: String(apiPort), API_METRICS_PORT: '0' }, log);
  let worker: DeployedProcess = deployedProcess('worker', 'worker', { ...env, WORKER_HTTP_PORT: String(workerPort) }, log);
  const startWorker = async (extra: Record<string, string> = {}) => {
    worker = deployedProcess('worker', 'worker', { ...env, WORKER_HTTP_PORT: String(workerPort), ...extra }, log);
    worker.start();
    await waitReady(`http://127.0.0.1:${workerPort}/healthz`, worker);
  };
  try {
    api.start();
    await waitReady(`http://127.0.0.1:${apiPort}/readyz`, api);
    await startWorker();
    const client = stack.clientFor(`http://127.0.0.1:${apiPort}`);
    const { path } = stack;
    await expectStatus(client.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: 'client-1', name: 'Ada', phone: '+14155550100' } }), 201);

    /** CPU of the stack (every process but this one) from here on. */
    const stackCpu = () => {
      const before = cpuSnapshot();
      const own = process.cpuUsage();
      const apiBefore = processCpuSeconds(api.child.pid!);
      const workerBefore = processCpuSeconds(worker.child.pid!);
      return (items: number) => {
        const groups = cpuSeconds(before, cpuSnapshot());
        const mine = process.cpuUsage(own);
        const self = (mine.user + mine.system) / 1e6;
        const apiS = processCpuSeconds(api.child.pid!) - apiBefore;
        const workerS = processCpuSeconds(worker.child.pid!) - workerBefore;
        const total = groups.total - self;
        const ms = (s: number) => +((s / items) * 1000).toFixed(3);
        return { items, msPerItem: { total: ms(total), api: ms(apiS), worker: ms(workerS), temporal: ms(groups.Temporal), postgres: ms(groups.PostgreSQL) } };
      };
    };
    const deliveredOf = (ids: string[]) => ids.filter((id) => receiver.received.has(id)).length;
    const waitDelivered = async (ids: string[], what: string, deadline: number) => {
      let lastLog = 0;
      while (deliveredOf(ids) < ids.length && Date.now() < deadline) {
        if (Date.now() - lastLog > 5000) {
          lastLog = Date.now();
          log(`${what}: ${deliveredOf(ids)}/${ids.length}`);
        }
        await sleep(200);
      }
    };
    const outcome = (ids: string[], dueAt: number) => {
      const lateness = ids.filter((id) => receiver.received.has(id)).map((id) => (receiver.received.get(id)!.firstAt - dueAt) / 1000);
      return {
        latenessS: distribution(lateness, 2),
        lost: ids.length - lateness.length,
        twice: ids.filter((id) => (receiver.received.get(id)?.posts ?? 0) > 1).length,
      };
    };

    // Warm-up of both paths, so that neither pays for the processes' first requests.
    await measure(10, 5, (i) => expectStatus(client.POST('/ext/v2/{businessname}/messages', { params: { path }, body: { message_type: 'text', client: 'client-1', text_message: `warm ${i}` } }), 202));
    await expectStatus(client.POST('/ext/v2/{businessname}/messages/batch', { params: { path }, body: { message_type: 'text', text_message: 'warm', recipients: [{ client: 'client-1' }] } }), 202);
    await sleep(3000);

    // 1. The per-message path: one POST /messages per message, all due in the same second.
    const leadMs = (10 + perMessage / 20) * 1000;
    let dueAt = Date.now() + leadMs;
    log(`per-message: accepting ${perMessage} messages due in ${leadMs / 1000} s`);
    let cpu = stackCpu();
    const singleIds: string[] = new Array(perMessage);
    const singleAccept = await measure(perMessage, 10, async (i) => {
      const delay = `PT${(Math.max(dueAt - Date.now(), 0) / 1000).toFixed(3)}S`;
      const { data, response } = await client.POST('/ext/v2/{businessname}/messages', { params: { path }, body: { message_type: 'text', client: 'client-1', text_message: `Single ${i}`, delay } });
      if (response.status !== 202 || !data) throw new Error(`POST /messages answered ${response.status}`);
      singleIds[i] = data._id;
    });
    await waitDelivered(singleIds, 'per-message delivered', dueAt + 600_000);
    const singleCpu = cpu(perMessage);
    const single = { acceptPerSecond: singleAccept.perSecond, ...outcome(singleIds, dueAt) };
    log(`per-message: ${JSON.stringify({ single, singleCpu })}`);
    await sleep(3000);

    /** Accepts `count` recipients in requests of 1,000, all due at `dueAt`; the ids and the wall time. */
    const acceptBulk = async (count: number, due: number, label: string) => {
      const ids: string[] = [];
      const started = performance.now();
      for (let offset = 0; offset < count; offset += BATCH) {
        const n = Math.min(BATCH, count - offset);
        const recipients = Array.from({ length: n }, (_, i) => ({ client_phone: `+1415${String(offset + i).padStart(7, '0')}`, client_name: `R${offset + i}` }));
        const delay = `PT${(Math.max(due - Date.now(), 0) / 1000).toFixed(3)}S`;
        const { data, response } = await client.POST('/ext/v2/{businessname}/messages/batch', {
          params: { path },
          body: { message_type: 'text', text_message: `Hi {{client_name}}, ${label}`, delay, recipients },
        });
        if (response.status !== 202 || !data) throw new Error(`POST /messages/batch answered ${response.status}`);
        for (const r of data.results) if (r._id) ids.push(r._id);
      }
      return { ids, seconds: +((performance.now() - started) / 1000).toFixed(2) };
    };

    // 2. Bulk, 1,000 due in the same second.
    dueAt = Date.now() + 8000;
    cpu = stackCpu();
    const small = await acceptBulk(Math.min(BATCH, bulk), dueAt, 'the sale starts now');
    await waitDelivered(small.ids, 'bulk 1,000 delivered', dueAt + 300_000);
    const smallCpu = cpu(small.ids.length);
    const bulkSmall = { acceptSeconds: small.seconds, ...outcome(small.ids, dueAt) };
    log(`bulk ${small.ids.length}: ${JSON.stringify({ bulkSmall, smallCpu })}`);
    await sleep(3000);

    // 3. Bulk, `bulk` due in the same second, the worker's RSS sampled throughout.
    dueAt = Date.now() + 15_000 + bulk;
    cpu = stackCpu();
    let rssPeakMb = rssMbOf(worker.child.pid!);
    const sampler = setInterval(() => (rssPeakMb = Math.max(rssPeakMb, rssMbOf(worker.child.pid!))), 250);
    const large = await acceptBulk(bulk, dueAt, 'the sale starts now');
    log(`bulk ${bulk}: accepted in ${large.seconds} s, ${((dueAt - Date.now()) / 1000).toFixed(1)} s before due`);
    await waitDelivered(large.ids, `bulk ${bulk} delivered`, dueAt + 600_000);
    clearInterval(sampler);
    const largeCpu = cpu(large.ids.length);
    const bulkLarge = { acceptSeconds: large.seconds, ...outcome(large.ids, dueAt), workerRssPeakMb: rssPeakMb };
    log(`bulk ${bulk}: ${JSON.stringify({ bulkLarge, largeCpu })}`);

    // 4. Paced: the worker restarted with MESSAGE_SEND_RATE_PER_SECOND.
    await worker.stop();
    await startWorker({ MESSAGE_SEND_RATE_PER_SECOND: String(rate) });
    dueAt = Date.now() + 15_000 + paced;
    const slow = await acceptBulk(paced, dueAt, 'paced');
    await waitDelivered(slow.ids, `paced ${paced} delivered`, dueAt + (paced / rate) * 1000 + 300_000);
    const arrivals = slow.ids.filter((id) => receiver.received.has(id)).map((id) => receiver.received.get(id)!.firstAt).sort((a, b) => a - b);
    const offSlot = arrivals.length ? arrivals.map((t, k) => Math.abs(t - (arrivals[0] + (k * 1000) / rate)) / 1000).sort((a, b) => a - b) : [NaN];
    const pacedFigures = {
      sent: arrivals.length,
      spanS: arrivals.length ? +((arrivals[arrivals.length - 1] - arrivals[0]) / 1000).toFixed(1) : 0,
      offSlotS: { p50: +percentile(offSlot, 50).toFixed(3), p99: +percentile(offSlot, 99).toFixed(3), max: +offSlot[offSlot.length - 1].toFixed(3) },
      ...outcome(slow.ids, dueAt),
    };
    log(`paced: ${JSON.stringify(pacedFigures)}`);

    const accept10kPerMessageS = +(10_000 / singleAccept.perSecond).toFixed(1);
    const bulkAccept10kS = +((large.seconds * 10_000) / bulk).toFixed(2);
    const cpuRatio = ratio(largeCpu.msPerItem.total, singleCpu.msPerItem.total);
    const dominant = (c: typeof largeCpu) =>
      Object.entries(c.msPerItem)
        .filter(([k]) => k !== 'total')
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v} ms`)
        .join(', ');
    return printResult({
      scenario: 'campaign',
      what: `per-message: ${perMessage} POST /messages due in one second; bulk: POST /messages/batch of ${BATCH}, ${small.ids.length} then ${bulk} due in one second, then ${paced} at MESSAGE_SEND_RATE_PER_SECOND=${rate}; one API and one worker process, webhook provider, ${stack.engine === 'server' ? 'Temporal server engine on PostgreSQL' : 'dev server on SQLite (WAL)'}`,
      baseline: { label: 'the per-message path (POST /messages, one workflow each)', figures: { ...single, cpuMsPerMessage: singleCpu.msPerItem } },
      project: {
        label: 'bulk (POST /messages/batch, one workflow per 1,000)',
        figures: { [`due${small.ids.length}`]: { ...bulkSmall, cpuMsPerMessage: smallCpu.msPerItem }, [`due${bulk}`]: { ...bulkLarge, cpuMsPerMessage: largeCpu.msPerItem }, paced: pacedFigures },
      },
      ratios: { cpuPerMessage: cpuRatio, p99Lateness1000: ratio(bulkSmall.latenessS.p99, single.latenessS.p99) },
      goals: [
        { goal: 'accept 10,000 recipients ≤ 5 s', measured: `bulk ${bulkAccept10kS} s (${bulk} in ${large.seconds} s); per-message ${accept10kPerMessageS} s at ${singleAccept.perSecond}/s (from ${perMessage})`, met: bulkAccept10kS <= 5 },
        { goal: `${small.ids.length} due in the same second: p99 lateness ≤ 2 s`, measured: `bulk ${bulkSmall.latenessS.p99} s; per-message ${single.latenessS.p99} s`, met: bulkSmall.latenessS.p99 <= 2 },
        { goal: `${bulk} due in the same second: p99 lateness ≤ 10 s`, measured: `${bulkLarge.latenessS.p99} s`, met: bulkLarge.latenessS.p99 <= 10 },
        { goal: `at ${rate}/s each message within 1 s of its paced slot`, measured: `max ${pacedFigures.offSlotS.max} s off (p99 ${pacedFigures.offSlotS.p99} s) over ${pacedFigures.sent}`, met: pacedFigures.offSlotS.max <= 1 },
        { goal: 'CPU per delivered message ≤ 2 ms (all processes)', measured: `bulk ${largeCpu.msPerItem.total} ms (${dominant(largeCpu)}); per-message ${singleCpu.msPerItem.total} ms → ${cpuRatio}×`, met: largeCpu.msPerItem.total <= 2 },
        { goal: 'worker RSS ≤ 1 GiB during the bulk run', measured: `${rssPeakMb} MB`, met: rssPeakMb <= 1024 },
        { goal: 'none lost, none twice', measured: `lost ${single.lost}/${bulkSmall.lost}/${bulkLarge.lost}/${pacedFigures.lost}, twice ${single.twice}/${bulkSmall.twice}/${bulkLarge.twice}/${pacedFigures.twice}`, met: single.lost + bulkSmall.lost + bulkLarge.lost + pacedFigures.lost + single.twice + bulkSmall.twice + bulkLarge.twice + pacedFigures.twice === 0 },
      ],
      answered503: stack.busy.answered503,
      engine: stack.engine,
      notes: { perMessageCpu: singleCpu, bulkSmallCpu: smallCpu, bulkLargeCpu: largeCpu },
    });
  } finally {
    await worker.stop().catch(() => undefined);
    await api.stop().catch(() => undefined);
    await stack.stop();
    await receiver.close();
  }
}
