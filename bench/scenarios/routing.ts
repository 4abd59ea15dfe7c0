import { cpuAccumulator, type CpuPerItem } from '../cpu';
import { printResult, ratio, type ScenarioResult } from '../report';
import { expectStatus, measure, startBenchStack } from '../stack';

/*
 * `npm run bench -- routing [requests] [rounds]`: POST …/clients/{_id}/route (a round-robin policy over a
 * team of three, no capacity, so every route assigns: the decision, the assignment and its expiry
 * workflow) against POST …/assign-agents with one agent on a client that has none (the request's
 * workflow and the expiry workflow), in alternating rounds on the same stack, at concurrency 1 and 20.
 * Then 200 routes at once to a policy of capacity 2 over three other agents: how many were assigned and
 * whether any agent went over its capacity.
 */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const CONCURRENCIES = [1, 20] as const;
const BURST = 200;

export async function run(args: string[]): Promise<ScenarioResult> {
  const [requests = 200, rounds = 3] = args.map(Number);
  const stack = await startBenchStack();
  try {
    const { api, path, prisma } = stack;
    const body = <T>(b: T) => ({ params: { path }, body: b });
    for (const _id of ['agent-1', 'agent-2', 'agent-3', 'cap-1', 'cap-2', 'cap-3']) await expectStatus(api.POST('/ext/v2/{businessname}/agents', body({ _id })), 201);
    await expectStatus(api.PUT('/ext/v2/{businessname}/teams/{_id}', { params: { path: { ...path, _id: 'sales' } }, body: { members: [1, 2, 3].map((i) => ({ agent: `agent-${i}` })) } }), 200);
    await expectStatus(api.PUT('/ext/v2/{businessname}/routing-policies/{_id}', { params: { path: { ...path, _id: 'sales' } }, body: { team: 'sales' } }), 200);
    await expectStatus(api.PUT('/ext/v2/{businessname}/teams/{_id}', { params: { path: { ...path, _id: 'capped' } }, body: { members: [1, 2, 3].map((i) => ({ agent: `cap-${i}` })) } }), 200);
    await expectStatus(api.PUT('/ext/v2/{businessname}/routing-policies/{_id}', { params: { path: { ...path, _id: 'capped' } }, body: { team: 'capped', capacity: 2 } }), 200);

    const warmUp = 30;
    const clients = CONCURRENCIES.length * 2 * (rounds * requests + warmUp) + BURST;
    await measure(clients, 10, (i) => expectStatus(api.POST('/ext/v2/{businessname}/clients', body({ _id: `client-${i}` })), 201));
    let nextClient = 0;
    const client = () => `client-${nextClient++}`;
    const assign = () =>
      expectStatus(api.POST('/ext/v2/{businessname}/clients/{_id}/assign-agents', { params: { path: { ...path, _id: client() } }, body: { agents: [{ agent: `agent-${1 + (nextClient % 3)}` }] } }), 200);
    const route = (policy = 'sales', expected = 200) => expectStatus(api.POST('/ext/v2/{businessname}/clients/{_id}/route', { params: { path: { ...path, _id: client() } }, body: { policy } }), expected);

    type Figures = { p50: number; p99: number; perSecond: number };
    const baseline: Record<string, unknown> = {};
    const project: Record<string, unknown> = {};
    const ratios: Record<string, number> = {};
    const goals: ScenarioResult['goals'] = [];
    const cpu: Record<string, CpuPerItem> = {};
    for (const concurrency of CONCURRENCIES) {
      await measure(warmUp, concurrency, () => assign());
      await measure(warmUp, concurrency, () => route());
      const assignRounds: Figures[] = [];
      const routeRounds: Figures[] = [];
      const assignCpu = cpuAccumulator();
      const routeCpu = cpuAccumulator();
      for (let round = 0; round < rounds; round++) {
        assignRounds.push(await assignCpu.during(() => measure(requests, concurrency, () => assign())));
        routeRounds.push(await routeCpu.during(() => measure(requests, concurrency, () => route())));
      }
      const pick = (xs: Figures[]) => ({ p50: median(xs.map((x) => x.p50)), p99: median(xs.map((x) => x.p99)), perSecond: median(xs.map((x) => x.perSecond)) });
      const a = pick(assignRounds);
      const r = pick(routeRounds);
      baseline[`c${concurrency}`] = a;
      project[`c${concurrency}`] = r;
      ratios[`latencyP50c${concurrency}`] = ratio(r.p50, a.p50);
      ratios[`latencyP99c${concurrency}`] = ratio(r.p99, a.p99);
      ratios[`throughputC${concurrency}`] = ratio(r.perSecond, a.perSecond);
      cpu[`assign c${concurrency}`] = assignCpu.per(rounds * requests);
      cpu[`route c${concurrency}`] = routeCpu.per(rounds * requests);
      goals.push({ goal: `route p50 ≤ 1.2× assign p50 at concurrency ${concurrency}`, measured: `${ratios[`latencyP50c${concurrency}`]}×`, met: ratios[`latencyP50c${concurrency}`] <= 1.2 });
      if (concurrency === 20) goals.push({ goal: 'routes/s ≥ 0.8× assigns/s at concurrency 20', measured: `${ratios.throughputC20}×`, met: ratios.throughputC20 >= 0.8 });
    }

    // 200 routes at once to the capped policy: three agents of capacity 2.
    const burst = await Promise.all(
      Array.from({ length: BURST }, async () => {
        const { response } = await api.POST('/ext/v2/{businessname}/clients/{_id}/route', { params: { path: { ...path, _id: client() } }, body: { policy: 'capped' } });
        return response.status;
      }),
    );
    const loads = await Promise.all([1, 2, 3].map((i) => prisma.assignment.count({ where: { status: 'active', agent: { id: `cap-${i}` } } })));
    const violations = loads.filter((load) => load > 2).length;
    const assigned = burst.filter((s) => s === 200).length;
    const queued = burst.filter((s) => s === 202).length;
    goals.push({ goal: `zero capacity violations at ${BURST} concurrent routes (exactly 6 assigned, the rest queued)`, measured: `${violations} violations, ${assigned} assigned, ${queued} queued, loads ${loads.join('/')}`, met: violations === 0 && assigned === 6 && queued === BURST - 6 });

    return printResult({
      scenario: 'routing',
      what: `${rounds} alternating rounds of ${requests} requests at concurrency ${CONCURRENCIES.join(' and ')}, new assignments; embedded stack, one process, ${stack.engine === 'server' ? 'Temporal server engine on PostgreSQL' : 'dev server on SQLite (WAL)'}`,
      baseline: { label: 'POST /clients/{_id}/assign-agents, one agent', figures: baseline },
      project: { label: 'POST /clients/{_id}/route, round robin over three, assigned', figures: project },
      ratios,
      goals,
      answered503: stack.busy.answered503,
      cpu,
      engine: stack.engine,
    });
  } finally {
    await stack.stop();
  }
}
