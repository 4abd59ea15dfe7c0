import { spawn, type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { freePort } from '../../src/net/free-port';
import { dataPaths, PROJECT_ROOT } from '../../src/paths';
import { processTreeCpu, type ProcessCpu } from '../process-cpu';
import { startDeliveryReceiver } from '../delivery-receiver';
import { deployedProcess, waitReady } from '../processes';
import { printResult, ratio, type ScenarioResult } from '../report';
import { distribution, sleep, startBenchStack } from '../stack';

/*
 * `npm run bench -- start-campaign [recipients=1000] [rounds=2] [variants=bench,start,start-warn] [mode=batch|single]`:
 * the same campaign (one POST /messages/batch of `recipients`, or with mode=single one POST /messages per
 * recipient, 10 at a time: a request log line each), all due in the same second, the webhook provider
 * posting to a receiver here, on each way of running the service, in alternating rounds of one run:
 *   bench       the campaign bench's deployment: PostgreSQL and Temporal, one API and one worker process
 *               from dist/, logs at warn;
 *   start       `npm start` as a user runs it: the supervisor, the stack, logs at info on its stdout (a
 *               pipe this process reads and throws away, as a terminal or a log collector would);
 *   start-warn  `npm start` with LOG_LEVEL=warn, which isolates what the log lines cost.
 * Prints each variant's p50/p99 lateness (median over its rounds), CPU per message for every process of
 * its tree, and npm start's p99 over the bench's.
 */
const log = (line: string) => console.error(`[start-campaign] ${line}`);
const VARIANTS = ['bench', 'start', 'start-warn'] as const;
type Variant = (typeof VARIANTS)[number];

interface Running {
  baseUrl: string;
  token: string;
  /** The process whose descendants are this variant's processes. */
  root: number;
  /** Bytes the variant wrote on stdout (its log lines). */
  stdoutBytes: () => number;
  stop: () => Promise<void>;
}

async function startBenchDeployment(webhookUrl: string): Promise<Running> {
  const stack = await startBenchStack({ inProcess: false });
  const env = { ...stack.env, LOG_LEVEL: 'warn', NODE_ENV: 'development', MESSAGE_PROVIDER: 'webhook', MESSAGE_WEBHOOK_URL: webhookUrl };
  const apiPort = await freePort();
  const workerPort = await freePort();
  const api = deployedProcess('api', 'api', { ...env, PORT: String(apiPort), API_METRICS_PORT: '0' }, log);
  const worker = deployedProcess('worker', 'worker', { ...env, WORKER_HTTP_PORT: String(workerPort) }, log);
  api.start();
  worker.start();
  await waitReady(`http://127.0.0.1:${apiPort}/readyz`, api);
  await waitReady(`http://127.0.0.1:${workerPort}/healthz`, worker);
  return {
    baseUrl: `http://127.0.0.1:${apiPort}`,
    token: jwt.sign({}, stack.env.JWT_SECRET, { algorithm: 'HS256', subject: 'bench-user', expiresIn: '1h' }),
    root: process.pid,
    stdoutBytes: () => 0,
    async stop() {
      await worker.stop();
      await api.stop();
      await stack.stop();
    },
  };
}

async function startNpmStart(webhookUrl: string, logLevel: string | undefined): Promise<Running> {
  const dataDir = await mkdtemp(join(tmpdir(), 'crm-bench-start-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    WORKER_HTTP_PORT: String(await freePort()),
    API_METRICS_PORT: String(await freePort()),
    MESSAGE_PROVIDER: 'webhook',
    MESSAGE_WEBHOOK_URL: webhookUrl,
    NODE_ENV: 'development',
  };
  delete env.LOG_LEVEL;
  if (logLevel) env.LOG_LEVEL = logLevel;
  let bytes = 0;
  const child: ChildProcess = spawn('npm', ['start', '--silent'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  child.stdout!.on('data', (chunk: Buffer) => (bytes += chunk.length));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 180_000;
  while (!(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false))) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('npm start was not ready within 180 s');
    await sleep(100);
  }
  const secret = (await readFile(dataPaths(dataDir).devJwtSecret, 'utf8')).trim();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    token: jwt.sign({}, secret, { algorithm: 'HS256', subject: 'bench-user', expiresIn: '1h' }),
    root: child.pid!,
    stdoutBytes: () => bytes,
    async stop() {
      process.kill(child.pid!, 'SIGINT');
      await Promise.race([exited, sleep(30_000).then(() => process.kill(-child.pid!, 'SIGKILL'))]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function post(running: Running, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${running.baseUrl}/ext/v2/bench${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${running.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 202) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

interface RoundResult {
  variant: Variant;
  latenessS: ReturnType<typeof distribution>;
  lost: number;
  twice: number;
  cpuMsPerMessage: Record<string, number>;
  logKbPerMessage: number;
}

/** Accepts the recipients, all due at `dueAt`: one batch, or one POST /messages each, 10 at a time. */
async function accept(running: Running, mode: 'batch' | 'single', phones: { client_phone: string; client_name: string }[], dueAt: number): Promise<string[]> {
  const delay = () => `PT${(Math.max(dueAt - Date.now(), 0) / 1000).toFixed(3)}S`;
  if (mode === 'batch') {
    const accepted = await post(running, '/messages/batch', { message_type: 'text', text_message: 'Hi {{client_name}}, the sale starts now.', delay: delay(), recipients: phones });
    return accepted.results.map((r: { _id?: string }) => r._id).filter(Boolean);
  }
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < phones.length) {
        const { client_phone, client_name } = phones[next++];
        const accepted = await post(running, '/messages', { message_type: 'text', client_phone, text_message: `Hi ${client_name}, the sale starts now.`, delay: delay() });
        ids.push(accepted._id);
      }
    }),
  );
  return ids;
}

async function round(variant: Variant, mode: 'batch' | 'single', recipients: number, receiver: Awaited<ReturnType<typeof startDeliveryReceiver>>, offset: number): Promise<RoundResult> {
  const running = variant === 'bench' ? await startBenchDeployment(receiver.url) : await startNpmStart(receiver.url, variant === 'start-warn' ? 'warn' : undefined);
  try {
    // Warm-up, so that neither way pays for its processes' first requests.
    await post(running, '/messages/batch', { message_type: 'text', text_message: 'warm', recipients: [{ client_phone: `+1415${String(offset + 9_000_000).padStart(7, '0')}` }] });
    await sleep(3000);
    const phones = Array.from({ length: recipients }, (_, i) => ({ client_phone: `+1415${String(offset + i).padStart(7, '0')}`, client_name: `R${i}` }));
    // Long enough for every single send to be accepted before the first is due (about 100/s here).
    const dueAt = Date.now() + (mode === 'batch' ? 8000 : 10_000 + recipients * 15);
    const cpuBefore = processTreeCpu(running.root);
    const bytesBefore = running.stdoutBytes();
    const ids = await accept(running, mode, phones, dueAt);
    const deadline = dueAt + 300_000;
    while (ids.some((id) => !receiver.received.has(id)) && Date.now() < deadline) await sleep(200);
    const cpu = diffCpu(cpuBefore, processTreeCpu(running.root), ids.length);
    const lateness = ids.filter((id) => receiver.received.has(id)).map((id) => (receiver.received.get(id)!.firstAt - dueAt) / 1000);
    const result: RoundResult = {
      variant,
      latenessS: distribution(lateness, 2),
      lost: ids.length - lateness.length,
      twice: ids.filter((id) => (receiver.received.get(id)?.posts ?? 0) > 1).length,
      cpuMsPerMessage: cpu,
      logKbPerMessage: +((running.stdoutBytes() - bytesBefore) / 1024 / ids.length).toFixed(2),
    };
    log(`${variant}: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await running.stop();
  }
}

function diffCpu(before: ProcessCpu, after: ProcessCpu, items: number): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const [label, seconds] of Object.entries(after)) {
    const spent = seconds - (before[label] ?? 0);
    if (spent <= 0) continue;
    out[label] = +((spent / items) * 1000).toFixed(2);
    total += spent;
  }
  return { total: +((total / items) * 1000).toFixed(2), ...out };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

export async function run(args: string[]): Promise<ScenarioResult> {
  const recipients = Number(args[0] ?? 1000);
  const rounds = Number(args[1] ?? 2);
  const variants = (args[2]?.split(',') ?? [...VARIANTS]) as Variant[];
  if (variants.some((v) => !VARIANTS.includes(v))) throw new Error(`variants: some of ${VARIANTS.join(',')}`);
  const mode = (args[3] ?? 'batch') as 'batch' | 'single';
  if (mode !== 'batch' && mode !== 'single') throw new Error('mode: batch or single');
  log('building dist/ (npm run build, when something changed)');
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-if-changed.js')], { stdio: 'inherit' });
  const receiver = await startDeliveryReceiver();
  const results: RoundResult[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      // Alternate the order each round, so that neither way always runs on a warmer machine.
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) results.push(await round(variant, mode, recipients, receiver, results.length * 100_000));
    }
  } finally {
    await receiver.close();
  }
  const summary = Object.fromEntries(
    variants.map((variant) => {
      const mine = results.filter((r) => r.variant === variant);
      return [
        variant,
        {
          p50: median(mine.map((r) => r.latenessS.p50)),
          p99: median(mine.map((r) => r.latenessS.p99)),
          rounds: mine.map((r) => r.latenessS.p99),
          cpuMsPerMessage: mine[mine.length - 1].cpuMsPerMessage,
          logKbPerMessage: median(mine.map((r) => r.logKbPerMessage)),
          lost: mine.reduce((n, r) => n + r.lost, 0),
          twice: mine.reduce((n, r) => n + r.twice, 0),
        },
      ];
    }),
  ) as Partial<Record<Variant, { p50: number; p99: number; lost: number; twice: number }>>;
  const bench = summary.bench;
  const start = summary.start;
  const startRatio = bench && start ? ratio(start.p99, bench.p99) : NaN;
  return printResult({
    scenario: 'start-campaign',
    what: `${mode === 'batch' ? `one POST /messages/batch of ${recipients}` : `${recipients} POST /messages, 10 at a time,`} due in the same second, webhook provider, ${rounds} alternating rounds of ${variants.join(', ')}`,
    baseline: { label: 'the campaign bench (API and worker processes, logs at warn)', figures: bench ? { ...bench } : {} },
    project: { label: 'npm start as users run it (logs at info)', figures: { ...(start ?? {}), ...(summary['start-warn'] && { atWarn: summary['start-warn'] }) } },
    ratios: { p99Lateness: startRatio },
    goals: bench && start
      ? [
          { goal: 'npm start within 1.1× of the bench (p99 lateness)', measured: `${start.p99} s vs ${bench.p99} s`, met: startRatio <= 1.1 },
          { goal: `npm start p99 ≤ 2 s wherever the bench's is`, measured: `${start.p99} s (bench ${bench.p99} s)`, met: bench.p99 > 2 || start.p99 <= 2 },
          { goal: 'none lost, none twice', measured: `lost ${start.lost + bench.lost}, twice ${start.twice + bench.twice}`, met: start.lost + bench.lost + start.twice + bench.twice === 0 },
        ]
      : [],
    answered503: 0,
    notes: { rounds: results },
  });
}
