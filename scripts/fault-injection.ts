import { createServer } from 'node:http';
import { leftoverServers } from '../src/stack/stack-lock';
import { log, sleep, startProcessStack, type ProcessName } from './process-stack';

/*
 * npm run fault:inject -- [rounds=3] [messages per second=10]
 *
 * The production shape on one machine — PostgreSQL, a Temporal dev server, `dist/main/api.js` and
 * `dist/main/worker.js` as separate processes, the webhook provider posting to a local receiver — under
 * a steady load of messages (due now or within 20 s). Each round kills one part at a time: the worker
 * (kill -9), the API (kill -9), the Temporal server (kill -9), PostgreSQL (immediate stop), each down
 * for a few seconds while the load goes on. A client retries every request with its Idempotency-Key
 * until it is accepted, as a client should. The receiver counts deliveries per key. Printed: accepted,
 * lost (accepted, never delivered), duplicated (delivered more than once), late (delivered more than
 * 5 s / 60 s after send_at), and lateness percentiles.
 */

const ROUNDS = Number(process.argv[2] ?? 3);
const RATE = Number(process.argv[3] ?? 10);
const PHASE_MS = 15_000;
const DOWN_MS = 4_000;
const DRAIN_MS = 5 * 60_000;

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

async function main() {
  // The receiver: what reached "the provider", per Idempotency-Key.
  const deliveries = new Map<string, number[]>();
  const receiver = createServer((req, res) => {
    const key = String(req.headers['idempotency-key']);
    req.resume().on('end', () => {
      deliveries.set(key, [...(deliveries.get(key) ?? []), Date.now()]);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ id: `r-${key}` }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = (receiver.address() as { port: number }).port;

  const stack = await startProcessStack({
    name: 'faults',
    dirPrefix: 'crm-faults-',
    user: 'fault-user',
    env: { MESSAGE_PROVIDER: 'webhook', MESSAGE_WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/messages` },
  });
  const call = (method: string, path: string, body: unknown, key?: string) => stack.call<Record<string, string>>(method, path, body, key);
  for (;;) {
    const created = await call('POST', '/clients', { _id: 'c1', phone: '+14155550100' }).catch(() => undefined);
    if (created && (created.status === 201 || created.status === 409)) break;
    await sleep(500);
  }

  const accepted = new Map<string, { id: string; sendAt: number }>();
  let requests = 0;
  let refusals = 0;
  let running = true;
  const pending = new Set<Promise<void>>();
  const sendOne = async (key: string) => {
    const delay = Math.random() < 0.3 ? undefined : `${Math.floor(Math.random() * 20)}s`;
    for (const started = Date.now(); Date.now() - started < 120_000; ) {
      requests += 1;
      const answer = await call('POST', '/messages', { message_type: 'text', client: 'c1', text_message: `fault ${key}`, ...(delay && { delay }) }, key).catch(() => undefined);
      if (answer?.status === 202) {
        accepted.set(answer.body._id, { id: answer.body._id, sendAt: Date.parse(answer.body.send_at) });
        return;
      }
      refusals += 1;
      await sleep(1000);
    }
    log(`gave up on ${key} after 120 s of refusals`);
  };
  const load = (async () => {
    let n = 0;
    while (running) {
      const job = sendOne(`k-${n++}`).finally(() => pending.delete(job));
      pending.add(job);
      await sleep(1000 / RATE);
    }
  })();

  const kill = async (name: string, stop: () => Promise<void>, restart: () => Promise<unknown>) => {
    await sleep(PHASE_MS / 3);
    log(`${name}: down`);
    await stop();
    await sleep(DOWN_MS);
    await restart();
    log(`${name}: up`);
    await sleep((2 * PHASE_MS) / 3);
  };
  const killProcess = (name: ProcessName) => () => stack.killProcess(name);
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round} of ${ROUNDS}`);
    await kill('worker (kill -9)', killProcess('worker'), async () => stack.startProcess('worker'));
    await kill('api (kill -9)', killProcess('api'), async () => stack.startProcess('api'));
    await kill(
      'temporal (kill -9)',
      async () => {
        for (const { pid, name } of await leftoverServers(stack.paths)) if (name === 'temporal') process.kill(pid, 'SIGKILL');
      },
      stack.startTemporal,
    );
    await kill(
      'postgresql (immediate stop)',
      async () => {
        for (const { pid, name } of await leftoverServers(stack.paths)) if (name === 'postgres') process.kill(pid, 'SIGQUIT');
        while ((await leftoverServers(stack.paths)).some((s) => s.name === 'postgres')) await sleep(100);
      },
      stack.restartPostgres,
    );
  }
  running = false;
  await load;
  await Promise.all(pending);
  log(`load over: ${accepted.size} accepted of ${requests} requests (${refusals} refused or unanswered, then retried); waiting for deliveries`);

  const drainUntil = Date.now() + DRAIN_MS;
  const undelivered = () => [...accepted.keys()].filter((id) => !deliveries.has(id));
  while (undelivered().length && Date.now() < drainUntil) await sleep(1000);
  await sleep(5000); // late duplicates

  const lateness = [...accepted.values()].filter(({ id }) => deliveries.has(id)).map(({ id, sendAt }) => (deliveries.get(id)![0] - sendAt) / 1000).sort((a, b) => a - b);
  const duplicated = [...accepted.keys()].filter((id) => (deliveries.get(id)?.length ?? 0) > 1).length;
  const unknown = [...deliveries.keys()].filter((id) => !accepted.has(id)).length;
  const figures = {
    rounds: ROUNDS,
    accepted: accepted.size,
    lost: undelivered().length,
    duplicated,
    deliveredNotAccepted: unknown,
    lateOver5s: lateness.filter((s) => s > 5).length,
    lateOver60s: lateness.filter((s) => s > 60).length,
    latenessSeconds: { p50: percentile(lateness, 50), p99: percentile(lateness, 99), max: lateness.at(-1) ?? NaN },
  };
  console.log(JSON.stringify(figures, null, 2));

  await stack.stop();
  receiver.close();
  process.exit(figures.lost || figures.duplicated ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
