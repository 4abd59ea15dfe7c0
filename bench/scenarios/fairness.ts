import { startCpuMeter } from '../cpu';
import { flood } from '../flood';
import { printResult, ratio, type ScenarioResult } from '../report';
import { distribution, expectStatus, startBenchStack, statusCounts, type BenchStack } from '../stack';

/*
 * `npm run bench -- fairness [sends=200] [floodConcurrency=100]`: one tenant's sends (POST /messages,
 * delay 1 h), one after the other, on the idle stack, then while another tenant floods the same door
 * with `floodConcurrency` senders in another process that send again as soon as they are answered (a
 * flood does not wait out Retry-After). The message gate shares its places between the tokens'
 * subjects (docs/operations.md, "Backpressure"): the quiet tenant must be refused nothing, and keep its
 * latency near its idle figure.
 */
const log = (line: string) => console.error(`[fairness] ${line}`);

const BODY = { message_type: 'text', client: 'c1', text_message: 'Hello', delay: '1h' };

/** `count` sends of the quiet tenant, one after the other: each one's status and milliseconds. */
async function quietSends(stack: BenchStack, count: number) {
  const quiet = stack.clientFor(stack.baseUrl, { retryBusy: false });
  const answers: { status: number; ms: number }[] = [];
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    const { response } = await quiet.POST('/ext/v2/{businessname}/messages', { params: { path: stack.path }, body: BODY });
    answers.push({ status: response.status, ms: performance.now() - began });
  }
  return answers;
}

const figures = (answers: { status: number; ms: number }[]) => ({ ...distribution(answers.map((a) => a.ms)), statuses: statusCounts(answers.map((a) => a.status)) });

export async function run(args: string[]): Promise<ScenarioResult> {
  const [sends = 200, floodConcurrency = 100] = args.map(Number);
  const stack = await startBenchStack();
  try {
    const noisyToken = stack.tokenFor('noisy-user');
    for (const api of [stack.api, stack.apiAs('noisy-user')]) {
      await expectStatus(api.POST('/ext/v2/{businessname}/clients', { params: { path: stack.path }, body: { _id: 'c1', phone: '+14155550100' } }), 201);
    }
    await quietSends(stack, 20); // warm-up

    log(`idle: ${sends} sends of the quiet tenant`);
    const idle = figures(await quietSends(stack, sends));

    log(`flood: ${floodConcurrency} senders of the noisy tenant, ${sends} sends of the quiet tenant beside them`);
    const flooding = flood(`${stack.baseUrl}/ext/v2/${stack.path.businessname}/messages`, noisyToken, BODY, floodConcurrency);
    await flooding.started;
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the flood fills the gate
    const meter = startCpuMeter();
    const during = figures(await quietSends(stack, sends));
    const noisyStatuses = await flooding.stop();
    const requests = Object.values(noisyStatuses).reduce((a, n) => a + n, 0) + sends;
    const refused = Object.entries(during.statuses).filter(([status]) => status !== '202').reduce((a, [, n]) => a + n, 0);
    const bound = Math.max(3 * idle.p95, 300);
    return printResult({
      scenario: 'fairness',
      what: `one tenant's POST /messages (delay 1 h), one at a time, idle and while another tenant floods the door with ${floodConcurrency} senders; embedded stack, one process`,
      baseline: { label: 'the quiet tenant on the idle stack', figures: idle },
      project: { label: 'the quiet tenant during the flood', figures: during },
      ratios: { p95: ratio(during.p95, idle.p95), p99: ratio(during.p99, idle.p99) },
      goals: [
        { goal: 'the quiet tenant is refused nothing', measured: `${refused} of ${sends}`, met: refused === 0 },
        { goal: "the quiet tenant's p95 ≤ max(3× idle p95, 300 ms)", measured: `${during.p95} ms (bound ${bound.toFixed(0)} ms)`, met: during.p95 <= bound },
      ],
      answered503: (idle.statuses[503] ?? 0) + (during.statuses[503] ?? 0),
      cpu: { 'during the flood (per request, both tenants)': meter.per(requests) },
      engine: stack.engine,
      notes: { floodStatuses: noisyStatuses },
    });
  } finally {
    await stack.stop();
  }
}
