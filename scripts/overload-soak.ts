import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { dataPaths, PROJECT_ROOT } from '../src/paths';
import { freePort } from '../src/net/free-port';
import { leftoverServers, type StackLockInfo } from '../src/stack/stack-lock';

/*
 * npm run soak:overload -- [seconds=60] [kills=1] [messages/s=32] [assigns/s=3] [routes/s=3.5]
 *
 * `npm start` (dist/main/start.js: supervisor, API, worker, PostgreSQL, Temporal dev server) offered more
 * than two cores take: an open-loop load of message sends (now or within 20 s), assign-agents requests and
 * routes, whatever the answers. `kills` times during the run the whole stack is killed with SIGKILL and
 * started again on the same data. Printed: the answers by kind and status (`error`: no answer, the stack
 * being down), and whether any was a 500 or a 504 (issue 48: there must be none).
 */

const [SECONDS = 60, KILLS = 1, MESSAGES = 32, ASSIGNS = 3, ROUTES = 3.5] = process.argv.slice(2).map(Number);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'crm-soak-'));
  await chmod(dataDir, 0o755); // PostgreSQL runs as its own user when run as root
  const env: Record<string, string> = { ...process.env, DATA_DIR: dataDir, MESSAGE_PROVIDER: 'log' } as Record<string, string>;
  for (const name of ['PORT', 'API_METRICS_PORT', 'WORKER_HTTP_PORT', 'TEMPORAL_PORT', 'TEMPORAL_UI_PORT']) env[name] = String(await freePort(0));
  const base = `http://127.0.0.1:${env.PORT}/ext/v2/acme`;

  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(process.execPath, [join(PROJECT_ROOT, 'dist/main/start.js')], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'ignore', 'ignore'] });
    for (;;) {
      if (await fetch(`http://127.0.0.1:${env.PORT}/readyz`).then((r) => r.ok, () => false)) return;
      await sleep(200);
    }
  };
  const killAll = async () => {
    const paths = dataPaths(dataDir);
    const stackPid = (JSON.parse(await readFile(paths.stackLock, 'utf8')) as StackLockInfo).pid;
    const servers = await leftoverServers(paths);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    for (const pid of new Set([child!.pid!, stackPid, ...servers.map((s) => s.pid)])) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await exited;
  };

  log(`starting npm start on ${dataDir}`);
  await start();
  const secret = (await readFile(dataPaths(dataDir).devJwtSecret, 'utf8')).trim();
  const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'soak', expiresIn: '2h' });
  const call = async (method: string, path: string, body?: unknown): Promise<number | string> => {
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      // A 503 says why: the worker behind (an assign withdrawn), the gate busy, or a backing service down.
      if (res.status !== 503) return res.status;
      const detail = (JSON.parse(text) as { detail?: string }).detail ?? '';
      return `503 ${detail.includes('behind') ? 'behind' : detail.includes('busy') ? 'busy' : 'unavailable'}`;
    } catch {
      return 'error';
    }
  };
  const must = async (method: string, path: string, body: unknown) => {
    const status = await call(method, path, body);
    if (status !== 200 && status !== 201) throw new Error(`${method} ${path}: ${status}`);
  };

  const agents = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
  for (const _id of agents) await must('POST', '/agents', { _id });
  await must('PUT', '/teams/sales', { members: agents.map((agent) => ({ agent })) });
  await must('PUT', '/routing-policies/sales', { team: 'sales', working_hours: false });
  const routeClients = Math.ceil(SECONDS * ROUTES * 1.2);
  const assignClients = 50;
  const ids = [...Array.from({ length: routeClients }, (_, i) => `r${i}`), ...Array.from({ length: assignClients }, (_, i) => `c${i}`)];
  for (let i = 0; i < ids.length; i += 20) await Promise.all(ids.slice(i, i + 20).map((_id) => must('POST', '/clients', { _id, phone: '+14155550100' })));
  log(`${agents.length} agents, ${ids.length} clients; offering ${MESSAGES} messages/s, ${ASSIGNS} assigns/s, ${ROUTES} routes/s for ${SECONDS} s, ${KILLS} SIGKILL(s) of the whole stack`);

  const answers: Record<string, Record<string, number>> = { message: {}, assign: {}, route: {} };
  const count = (kind: string, status: number | string) => (answers[kind][status] = (answers[kind][status] ?? 0) + 1);
  const pending = new Set<Promise<void>>();
  const fire = (kind: string, request: () => Promise<number | string>) => {
    const p = request().then((status) => void count(kind, status));
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  let nextRoute = 0;
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const offer = (rate: number, send: () => void) => {
    const timer = setInterval(() => {
      // Whole requests per 100 ms tick, the fraction carried over at random.
      const n = Math.floor(rate / 10) + (Math.random() < (rate / 10) % 1 ? 1 : 0);
      for (let i = 0; i < n; i++) send();
    }, 100);
    return () => clearInterval(timer);
  };
  const stops = [
    offer(MESSAGES, () => fire('message', () => call('POST', '/messages', { client: `c${Math.floor(Math.random() * assignClients)}`, message_type: 'text', text_message: 'soak', ...(Math.random() < 0.5 && { delay: `${Math.floor(Math.random() * 20)}s` }) }))),
    offer(ASSIGNS, () => fire('assign', () => call('POST', `/clients/c${Math.floor(Math.random() * assignClients)}/assign-agents`, { agents: [{ agent: pick(agents) }] }))),
    offer(ROUTES, () => fire('route', () => call('POST', `/clients/r${nextRoute++ % routeClients}/route`, { policy: 'sales' }))),
  ];
  const began = Date.now();
  for (let k = 1; k <= KILLS; k++) {
    await sleep(began + (k * SECONDS * 1000) / (KILLS + 1) - Date.now());
    log('SIGKILL of the whole stack');
    await killAll();
    await start();
    log('started again');
  }
  await sleep(began + SECONDS * 1000 - Date.now());
  for (const stop of stops) stop();
  log(`load over; waiting for ${pending.size} requests in flight`);
  await Promise.all(pending);
  await killAll().catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
  const bad = Object.values(answers).reduce((n, byStatus) => n + (byStatus['500'] ?? 0) + (byStatus['504'] ?? 0), 0);
  console.log(JSON.stringify({ seconds: SECONDS, kills: KILLS, offeredPerSecond: { messages: MESSAGES, assigns: ASSIGNS, routes: ROUTES }, answers, fiveHundredsAndFiveOhFours: bad }, null, 2));
  process.exit(bad === 0 ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
