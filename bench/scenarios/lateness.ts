import { Client } from '@temporalio/client';
import { createLogProvider } from '../../src/activities/providers/log';
import type { MessageProvider } from '../../src/activities/providers';
import { RAW_TASK_QUEUE, startRawWorker } from '../baseline/worker';
import { startCpuMeter } from '../cpu';
import { printResult, ratio, type ScenarioResult } from '../report';
import { distribution, expectStatus, measure, sleep, startBenchStack } from '../stack';

/*
 * `npm run bench -- lateness [messages] [leadSeconds] [concurrency]`: `messages` messages all due within
 * the same second, created ahead of it over HTTP (POST /messages with a delay), against the raw
 * pipeline on the same server: as many workflows started with `startDelay` until the same moments, each
 * running one activity. Lateness is `sent − send_at` (the activity's start for the baseline).
 */

/** The log provider, counting each hand-over per message: exactly once is checked here, not by its table's key. */
function countingProvider(inner: MessageProvider, counts: Map<string, number>): MessageProvider {
  return {
    ...inner,
    async deliver(message) {
      counts.set(message.id, (counts.get(message.id) ?? 0) + 1);
      return inner.deliver(message);
    },
  };
}

const log = (line: string) => console.error(`[lateness] ${line}`);

async function waitFor(done: () => Promise<number> | number, count: number, deadline: number, what: string) {
  let last = -1;
  for (;;) {
    const n = await done();
    if (n >= count) return;
    if (Date.now() > deadline) throw new Error(`${what}: only ${n} of ${count} before the deadline`);
    if (n !== last) log(`${what}: ${n}/${count}`);
    last = n;
    await sleep(n > 0 ? 500 : 1000);
  }
}

function summary(latenessS: number[], dueAt: number, doneAtMs: number[]) {
  const firstDone = Math.min(...doneAtMs);
  const lastDone = Math.max(...doneAtMs);
  return {
    latenessS: distribution(latenessS, 2),
    firstAfterDueS: +((firstDone - dueAt) / 1000).toFixed(2),
    drainPerSecond: +(doneAtMs.length / Math.max((lastDone - firstDone) / 1000, 0.001)).toFixed(1),
  };
}

export async function run(args: string[]): Promise<ScenarioResult> {
  const count = Number(args[0] ?? 1000);
  const concurrency = Number(args[2] ?? 10);
  // Long enough to create them all before the first is due, at the accept rates of this machine.
  const leadMs = (args[1] && args[1] !== 'auto' ? Number(args[1]) : 10 + count / 20) * 1000;
  const handovers = new Map<string, number>();
  const stack = await startBenchStack({ provider: (prisma) => countingProvider(createLogProvider(prisma), handovers) });
  // The baseline keeps the SDK's default worker settings: a fixed reference for the project's tuning.
  const raw = await startRawWorker(stack);
  try {
    const { api, path } = stack;
    await expectStatus(api.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: 'client-1', phone: '+14155550100' } }), 201);
    const rawClient = new Client({ connection: stack.temporal.connection });

    // Warm-up: a few of each, sent now, so the first due ones do not pay for the workers' start.
    await measure(10, 5, (i) => rawClient.workflow.execute('rawDelayedSend', { taskQueue: RAW_TASK_QUEUE, workflowId: `raw-warm-${i}`, args: [`raw-warm-${i}`] }));
    await measure(10, 5, (i) => expectStatus(api.POST('/ext/v2/{businessname}/messages', { params: { path }, body: { message_type: 'text', client: 'client-1', text_message: `warm ${i}` } }), 202));
    await sleep(2000);

    // Baseline: raw workflows with a start delay until their moment, one activity each.
    let dueAt = Date.now() + leadMs;
    let due = (i: number) => dueAt + Math.floor((i * 1000) / count);
    log(`raw: starting ${count} delayed workflows, due in ${leadMs / 1000} s`);
    const rawCpu = startCpuMeter();
    const rawCreation = await measure(count, concurrency, async (i) => {
      await rawClient.workflow.start('rawDelayedSend', {
        taskQueue: RAW_TASK_QUEUE,
        workflowId: `raw-late-${i}`,
        args: [`raw-late-${i}`],
        startDelay: Math.max(due(i) - Date.now(), 1),
      });
    });
    const rawSlackS = +((dueAt - Date.now()) / 1000).toFixed(1);
    await waitFor(() => [...raw.deliveredAt.keys()].filter((k) => k.startsWith('raw-late-')).length, count, dueAt + 600_000, 'raw delivered');
    const rawCpuPerItem = rawCpu.per(count);
    const rawLateness = Array.from({ length: count }, (_, i) => (raw.deliveredAt.get(`raw-late-${i}`)! - due(i)) / 1000);
    const rawDone = Array.from({ length: count }, (_, i) => raw.deliveredAt.get(`raw-late-${i}`)!);
    const rawTwice = Array.from({ length: count }, (_, i) => raw.deliveries.get(`raw-late-${i}`)!).filter((n) => n !== 1).length;
    const baseline = { ...summary(rawLateness, dueAt, rawDone), createdPerSecond: rawCreation.perSecond, createdSecondsBeforeDue: rawSlackS, deliveredOtherThanOnce: rawTwice };
    log(`raw: ${JSON.stringify(baseline)}`);
    await sleep(3000);

    // The project: POST /messages, each with the delay that makes it due at its moment.
    dueAt = Date.now() + leadMs;
    due = (i: number) => dueAt + Math.floor((i * 1000) / count);
    log(`project: accepting ${count} messages, due in ${leadMs / 1000} s`);
    const ids: string[] = new Array(count);
    const projectCpu = startCpuMeter();
    const projectCreation = await measure(count, concurrency, async (i) => {
      const delay = `PT${(Math.max(due(i) - Date.now(), 0) / 1000).toFixed(3)}S`;
      const { data, response } = await api.POST('/ext/v2/{businessname}/messages', {
        params: { path },
        body: { message_type: 'text', client: 'client-1', text_message: `Due together ${i}`, delay },
      });
      if (response.status !== 202 || !data) throw new Error(`POST /messages answered ${response.status}`);
      ids[i] = data._id;
    });
    const projectSlackS = +((dueAt - Date.now()) / 1000).toFixed(1);
    const countSent = () => stack.prisma.message.count({ where: { id: { in: ids }, status: { in: ['sent', 'failed'] } } });
    await waitFor(countSent, count, dueAt + 600_000, 'project sent');
    const projectCpuPerItem = projectCpu.per(count);
    const rows = await stack.prisma.message.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, sendAt: true, sentAt: true, attempts: true } });
    const sentRows = rows.filter((r) => r.status === 'sent');
    const projectLateness = sentRows.map((r) => (r.sentAt!.getTime() - r.sendAt.getTime()) / 1000);
    const handedOverOtherThanOnce = ids.filter((id) => handovers.get(id) !== 1).length;
    const spreadS = (Math.max(...rows.map((r) => r.sendAt.getTime())) - Math.min(...rows.map((r) => r.sendAt.getTime()))) / 1000;
    const project = {
      ...summary(projectLateness, Math.min(...rows.map((r) => r.sendAt.getTime())), sentRows.map((r) => r.sentAt!.getTime())),
      createdPerSecond: projectCreation.perSecond,
      createdSecondsBeforeDue: projectSlackS,
      sent: sentRows.length,
      handedOverOtherThanOnce,
      sendAtSpreadS: spreadS,
    };
    const p99Ratio = ratio(project.latenessS.p99, baseline.latenessS.p99);
    return printResult({
      scenario: 'lateness',
      what: `${count} messages due within the same second (send_at spread ${spreadS} s), created ${leadMs / 1000} s ahead at concurrency ${concurrency}; embedded stack, ${stack.engine === 'server' ? 'Temporal server engine on PostgreSQL' : 'dev server on SQLite (WAL)'}`,
      baseline: { label: 'raw Temporal: workflows started with startDelay, one activity each', figures: baseline },
      project: { label: 'POST /messages with a delay, log provider', figures: project },
      ratios: { latenessP99: p99Ratio, latenessP50: ratio(project.latenessS.p50, baseline.latenessS.p50) },
      goals: [
        { goal: 'p99 lateness ≤ 5 s', measured: `${project.latenessS.p99} s`, met: project.latenessS.p99 <= 5 },
        { goal: 'each sent exactly once', measured: `${project.sent}/${count} sent, ${handedOverOtherThanOnce} handed over other than once`, met: project.sent === count && handedOverOtherThanOnce === 0 },
        { goal: 'p99 ≤ 1.3× raw Temporal', measured: `${p99Ratio}×`, met: p99Ratio <= 1.3 },
      ],
      answered503: stack.busy.answered503,
      // From the first create to the last delivery, per message: the whole stack, both phases alike.
      cpu: { baseline: rawCpuPerItem, project: projectCpuPerItem },
      engine: stack.engine,
    });
  } finally {
    await raw.stop();
    await stack.stop();
  }
}
