import { measure, rssMb, startBenchStack } from './stack';

/*
 * `npm run bench:assign [-- requests concurrency]`: assign-agents over real HTTP on a fresh embedded
 * stack, each request running its validating workflow and starting an expiry workflow per agent.
 * Prints latency, throughput and memory; asserts nothing (the machines are shared and noisy).
 */
async function main() {
  const [requests = 300, concurrency = 10] = process.argv.slice(2).map(Number);
  const stack = await startBenchStack();
  try {
    const headers = { authorization: `Bearer ${stack.token('bench-user')}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown, expected: number) => {
      const res = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status !== expected) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    };
    for (let i = 0; i < 3; i++) await post('/agents', { _id: `agent-${i}` }, 201);
    for (let i = 0; i < requests; i++) await post('/clients', { _id: `client-${i}` }, 201);
    const agents = [0, 1, 2].map((i) => ({ agent: `agent-${i}` }));

    await measure(20, 5, (i) => post(`/clients/client-${i}/assign-agents`, { agents }, 200)); // warm-up
    const rssBefore = rssMb();
    const fresh = await measure(requests, concurrency, (i) => post(`/clients/client-${i}/assign-agents`, { agents }, 200));
    const reassign = await measure(requests, concurrency, (i) =>
      post(`/clients/client-${i}/assign-agents`, { agents, ds_notes: 'rotation' }, 200),
    );
    const rejected = await measure(requests, concurrency, (i) =>
      post(`/clients/client-${i}/assign-agents`, { agents: [{ agent: 'no-such-agent' }] }, 400),
    );
    const active = await stack.prisma.assignment.count({ where: { status: 'active' } });
    console.log(JSON.stringify({ benchmark: 'assign-agents (3 agents per request)', fresh, reassign, rejected, activeAssignments: active }, null, 2));
    console.log(JSON.stringify({ rssMbBefore: rssBefore, rssMbAfter: rssMb(), heapUsedMb: +(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1) }));
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
