import { expectStatus, measure, runBenchmark } from './stack';

/*
 * `npm run bench:assign [-- requests concurrency]`: assign-agents over real HTTP on a fresh embedded
 * stack, each request running its validating workflow and starting an expiry workflow per agent.
 * Calls go through the typed client generated from the OpenAPI document. Prints latency, throughput
 * and memory; asserts nothing (the machines are shared and noisy).
 */
const [requests = 300, concurrency = 10] = process.argv.slice(2).map(Number);

runBenchmark(async ({ api, path, prisma }) => {
  for (let i = 0; i < 3; i++) await expectStatus(api.POST('/ext/v2/{businessname}/agents', { params: { path }, body: { _id: `agent-${i}` } }), 201);
  for (let i = 0; i < requests; i++) await expectStatus(api.POST('/ext/v2/{businessname}/clients', { params: { path }, body: { _id: `client-${i}` } }), 201);
  const agents = [0, 1, 2].map((i) => ({ agent: `agent-${i}` }));
  const assign = (i: number, body: { agents: { agent: string }[]; ds_notes?: string }, expected: number) =>
    expectStatus(api.POST('/ext/v2/{businessname}/clients/{_id}/assign-agents', { params: { path: { ...path, _id: `client-${i}` } }, body }), expected);

  await measure(20, 5, (i) => assign(i, { agents }, 200)); // warm-up
  const fresh = await measure(requests, concurrency, (i) => assign(i, { agents }, 200));
  const reassign = await measure(requests, concurrency, (i) => assign(i, { agents, ds_notes: 'rotation' }, 200));
  const rejected = await measure(requests, concurrency, (i) => assign(i, { agents: [{ agent: 'no-such-agent' }] }, 400));
  const activeAssignments = await prisma.assignment.count({ where: { status: 'active' } });
  return { benchmark: 'assign-agents (3 agents per request)', fresh, reassign, rejected, activeAssignments };
});
