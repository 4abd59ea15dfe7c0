import { MockActivityEnvironment } from '@temporalio/testing';
import { createReconcileActivities } from '../../src/activities/housekeeping/reconcile';
import type { ReconcileResult } from '../../src/domain';
import { sendMessageRequest } from '../../src/use-cases/messages/accept';
import { startCpuMeter } from '../cpu';
import { printResult, ratio, type ScenarioResult } from '../report';
import { expectStatus, measure, startBenchStack } from '../stack';

/*
 * `npm run bench -- reconcile [recentMessages] [requests]`: what the reconciler's recent pass costs the
 * accept path on a loaded system. Loads `recentMessages` pending messages (delay 30 days) through the use
 * case, so they all fall in the recent pass's window, then measures accept over HTTP (`requests` at
 * concurrency 10) with no pass running (the baseline) and while one recent pass runs, and the pass's
 * own duration and CPU. A ratio near 1 says the pass is not what slows a loaded accept.
 */
const log = (line: string) => console.error(`[reconcile] ${line}`);

export async function run(args: string[]): Promise<ScenarioResult> {
  const [recentMessages = 10_000, requests = 300] = args.map(Number);
  const stack = await startBenchStack();
  try {
    const { api, path, scope } = stack;
    await expectStatus(api.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: 'client-1', phone: '+14155550100' } }), 201);
    const deps = { ...stack.services, admission: undefined };
    log(`loading ${recentMessages} messages`);
    await measure(recentMessages, 16, (i) =>
      sendMessageRequest(deps, scope, { message_type: 'text', client: 'client-1', text_message: `Pending ${i}`, delay: '30d' }, undefined).then(() => undefined),
    );
    const accept = (tag: string) =>
      measure(requests, 10, (i) =>
        expectStatus(api.POST('/ext/v2/{businessname}/messages', { params: { path }, body: { message_type: 'text', client: 'client-1', text_message: `${tag} ${i}`, delay: '30d' } }), 202),
      );
    await accept('warm');
    const quiet = await accept('quiet');
    log(`accept with no pass running: ${JSON.stringify(quiet)}`);

    const { reconcileOrphans } = createReconcileActivities({ prisma: stack.prisma, temporal: stack.temporal, taskQueue: stack.taskQueue });
    const meter = startCpuMeter();
    const passStarted = performance.now();
    // graceMs 0: every loaded row is old enough to be checked, as a minute after the load.
    const pass = new MockActivityEnvironment().run(reconcileOrphans, { full: false, graceMs: 0 }).then((result) => ({ result: result as ReconcileResult, seconds: (performance.now() - passStarted) / 1000 }));
    const during = await accept('during');
    const { result, seconds } = await pass;
    const cpu = meter.per(1);
    log(`accept during the recent pass: ${JSON.stringify(during)}; the pass took ${seconds.toFixed(1)} s: ${JSON.stringify(result)}`);
    const acceptRatio = ratio(during.perSecond, quiet.perSecond);
    return printResult({
      scenario: 'reconcile',
      what: `${recentMessages} messages pending (all in the recent window), then ${requests} accepts at concurrency 10 without and during one recent reconcile pass; embedded stack, one process`,
      baseline: { label: 'accept, no pass running', figures: { ...quiet } },
      project: { label: 'accept while a recent pass runs', figures: { ...during, passSeconds: +seconds.toFixed(1), messagesChecked: result.messagesChecked, messagesRestarted: result.messagesRestarted } },
      ratios: { acceptRate: acceptRatio },
      goals: [{ goal: 'a recent pass leaves accept within 10 % of its rate', measured: `${acceptRatio}×`, met: acceptRatio >= 0.9 }],
      answered503: stack.busy.answered503,
      cpu: { 'pass and the accepts beside it (per pass)': cpu },
      engine: stack.engine,
    });
  } finally {
    await stack.stop();
  }
}
