import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import jwt from 'jsonwebtoken';
import { loadConfig } from '../src/config/index';
import { applyMigrations } from '../src/db/migrate';
import { freePort } from '../src/stack/ports';
import { startEmbeddedPostgres, type RunningPostgres } from '../src/stack/postgres';
import { leftoverServers } from '../src/stack/stack-lock';
import { startDevServer } from '../src/stack/temporal-server';
import { dataPaths, PROJECT_ROOT } from '../src/paths';
import { generatePayloadKey } from '../src/config/payload-keys';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

async function main() {
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts/build-if-changed.js')], { stdio: 'inherit' });
  const dir = await mkdtemp(join(tmpdir(), 'crm-faults-'));
  const paths = dataPaths(dir);
  const config = loadConfig({ ...process.env, DATA_DIR: dir });
  const secret = randomBytes(32).toString('hex');
  const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'fault-user', expiresIn: '2h' });

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

  const pgPort = await freePort();
  let postgres: RunningPostgres = await startEmbeddedPostgres({ dataDir: paths.postgres, port: pgPort });
  const databaseUrl = await postgres.appDatabase('crm');
  await applyMigrations(databaseUrl);
  const temporalPort = await freePort();
  const startTemporal = () => startDevServer(config, { dbFilename: paths.temporalDb, port: temporalPort });
  await startTemporal();
  const apiPort = await freePort();
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_PAYLOAD_KEYS: generatePayloadKey('faults'),
    SECRETS_KEY: generatePayloadKey('faults-secrets'),
    JWT_SECRET: secret,
    PORT: String(apiPort),
    WORKER_HTTP_PORT: '0',
    API_METRICS_PORT: '0',
    MESSAGE_PROVIDER: 'webhook',
    MESSAGE_WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/messages`,
    LOG_LEVEL: 'error',
  };
  const processes: Record<'api' | 'worker', ChildProcess | undefined> = { api: undefined, worker: undefined };
  const startProcess = (name: 'api' | 'worker') => {
    processes[name] = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'main', `${name}.js`)], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  };
  startProcess('worker');
  startProcess('api');

  const base = `http://127.0.0.1:${apiPort}/ext/v2/faults`;
  const call = async (method: string, path: string, body: unknown, key?: string) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key && { 'Idempotency-Key': key }) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, string> };
  };
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
  const killProcess = (name: 'api' | 'worker') => async () => {
    const child = processes[name]!;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round} of ${ROUNDS}`);
    await kill('worker (kill -9)', killProcess('worker'), async () => startProcess('worker'));
    await kill('api (kill -9)', killProcess('api'), async () => startProcess('api'));
    await kill(
      'temporal (kill -9)',
      async () => {
        for (const { pid, name } of await leftoverServers(paths)) if (name === 'temporal') process.kill(pid, 'SIGKILL');
      },
      startTemporal,
    );
    await kill(
      'postgresql (immediate stop)',
      async () => {
        for (const { pid, name } of await leftoverServers(paths)) if (name === 'postgres') process.kill(pid, 'SIGQUIT');
        while ((await leftoverServers(paths)).some((s) => s.name === 'postgres')) await sleep(100);
      },
      async () => {
        postgres = await startEmbeddedPostgres({ dataDir: paths.postgres, port: pgPort });
      },
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

  for (const child of Object.values(processes)) child?.kill('SIGTERM');
  await sleep(2000);
  for (const { pid } of await leftoverServers(paths)) process.kill(pid, 'SIGTERM');
  await postgres.stop().catch(() => undefined);
  receiver.close();
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  process.exit(figures.lost || figures.duplicated ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
