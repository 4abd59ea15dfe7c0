import { measure, runBenchmark } from './stack';

/*
 * `npm run bench:assign [-- requests concurrency]`: assign-agents over real HTTP on a fresh embedded
 * stack, each request running its validating workflow and starting an expiry workflow per agent.
 * Prints latency, throughput and memory; asserts nothing (the machines are shared and noisy).
 */
const [requests = 300, concurrency = 10] = process.argv.slice(2).map(Number);

runBenchmark(async ({ post, prisma }) => {
  for (let i = 0; i < 3; i++) await post('/agents', { _id: `agent-${i}` }, 201);
  for (let i = 0; i < requests; i++) await post('/clients', { _id: `client-${i}` }, 201);
  const agents = [0, 1, 2].map((i) => ({ agent: `agent-${i}` }));
  const assign = (i: number, body: object, expected: number) => post(`/clients/client-${i}/assign-agents`, body, expected);

  await measure(20, 5, (i) => assign(i, { agents }, 200)); // warm-up
  const fresh = await measure(requests, concurrency, (i) => assign(i, { agents }, 200));
  const reassign = await measure(requests, concurrency, (i) => assign(i, { agents, ds_notes: 'rotation' }, 200));
  const rejected = await measure(requests, concurrency, (i) => assign(i, { agents: [{ agent: 'no-such-agent' }] }, 400));
  const activeAssignments = await prisma.assignment.count({ where: { status: 'active' } });
  return { benchmark: 'assign-agents (3 agents per request)', fresh, reassign, rejected, activeAssignments };
});
