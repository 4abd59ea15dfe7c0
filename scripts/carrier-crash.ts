import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { TwilioApi } from '../src/stack/simulator/twilio-api';
import { loadConfig } from '../src/config/index';
import { applyMigrations } from '../src/db/migrate';
import { freePort } from '../src/stack/ports';
import { startEmbeddedPostgres } from '../src/stack/postgres';
import { leftoverServers } from '../src/stack/stack-lock';
import { startDevServer } from '../src/stack/temporal-server';
import { dataPaths, PROJECT_ROOT } from '../src/paths';
import { generatePayloadKey } from '../src/config/payload-keys';

/*
 * npm run fault:carrier -- [messages=200] [answer delay ms=300]
 *
 * Duplicates under kill -9 of the worker while it sends through Twilio. PostgreSQL, a Temporal dev
 * server, `dist/main/api.js` and `dist/main/worker.js` as separate processes, MESSAGE_PROVIDER=twilio
 * with TWILIO_API_URL at a Twilio-compatible fake in this process. The fake answers each send after a
 * delay (a slow network), so that kills land between Twilio creating a message and the worker recording
 * it. The messages (one text per recipient) come due over max(30 s, count/4 s); the worker is
 * killed with SIGKILL at random moments (every 1.5–5.5 s) and restarted at once, until every message is
 * sent. Printed: messages, kills, messages that needed more than one attempt, lookups made, lookups
 * made after Twilio had created the copy (sends a blind retry would have duplicated), and numbers
 * Twilio received a text for twice (duplicates).
 */

const COUNT = Number(process.argv[2] ?? 200);
const ANSWER_DELAY_MS = Number(process.argv[3] ?? 300);
const SPREAD_S = Math.max(30, Math.ceil(COUNT / 4));
const DRAIN_MS = 10 * 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main() {
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts/build-if-changed.js')], { stdio: 'inherit' });
  const dir = await mkdtemp(join(tmpdir(), 'crm-carrier-crash-'));
  const paths = dataPaths(dir);
  const config = loadConfig({ ...process.env, DATA_DIR: dir });
  const secret = randomBytes(32).toString('hex');
  const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'crash-user', expiresIn: '2h' });

  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const from = '+15005550006';
  const twilio = new TwilioApi({ accountSid, authToken, from: [from], answerDelayMs: ANSWER_DELAY_MS });
  const twilioUrl = await twilio.start();

  const postgres = await startEmbeddedPostgres({ dataDir: paths.postgres, port: await freePort() });
  const databaseUrl = await postgres.appDatabase('crm');
  await applyMigrations(databaseUrl);
  const temporalPort = await freePort();
  await startDevServer(config, { dbFilename: paths.temporalDb, port: temporalPort });
  const apiPort = await freePort();
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_PAYLOAD_KEYS: generatePayloadKey('crash'),
    SECRETS_KEY: generatePayloadKey('crash-secrets'),
    JWT_SECRET: secret,
    PORT: String(apiPort),
    WORKER_HTTP_PORT: '0',
    API_METRICS_PORT: '0',
    MESSAGE_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: accountSid,
    TWILIO_AUTH_TOKEN: authToken,
    TWILIO_FROM: from,
    TWILIO_API_URL: twilioUrl,
    // Receipts are not exercised here: nothing listens there.
    PUBLIC_BASE_URL: 'http://127.0.0.1:9',
    LOG_LEVEL: 'error',
  };
  const processes: Record<'api' | 'worker', ChildProcess | undefined> = { api: undefined, worker: undefined };
  const startProcess = (name: 'api' | 'worker') => {
    processes[name] = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'main', `${name}.js`)], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  };
  startProcess('worker');
  startProcess('api');

  const base = `http://127.0.0.1:${apiPort}/ext/v2/crash`;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> };
  };
  const phoneOf = (n: number) => `+1415${String(5_000_000 + n).padStart(7, '0')}`;

  const ids: string[] = [];
  for (let n = 0; n < COUNT; n++) {
    for (;;) {
      // Due over the next SPREAD_S seconds, while the worker is being killed.
      const delay = `${Math.floor((n / COUNT) * SPREAD_S) + 5}s`;
      const answer = await call('POST', '/messages', { message_type: 'text', client_phone: phoneOf(n), text_message: `crash test ${n}`, delay }).catch(() => undefined);
      if (answer?.status === 202) {
        ids.push(String(answer.body._id));
        break;
      }
      await sleep(500);
    }
  }
  log(`${ids.length} messages accepted; killing the worker at random moments until all are sent`);

  let kills = 0;
  const statusOf = async (id: string) => String((await call('GET', `/messages/${id}`).catch(() => undefined))?.body.status ?? 'unknown');
  const unsent = async () => (await Promise.all(ids.map(async (id) => ((await statusOf(id)) === 'sent' ? undefined : id)))).filter(Boolean);
  const drainUntil = Date.now() + DRAIN_MS;
  let killing = true;
  const killer = (async () => {
    while (killing) {
      // A restarted worker needs a moment to poll again: kills come every 1.5–5.5 s.
      await sleep(1500 + Math.random() * 4000);
      if (!killing) break;
      const child = processes.worker!;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      kills += 1;
      startProcess('worker');
    }
  })();
  // Kill while sends go on; stop killing once the sends made so far reach the count.
  while (twilio.messages.length < ids.length && Date.now() < drainUntil) await sleep(200);
  killing = false;
  await killer;
  let left = await unsent();
  while (left.length && Date.now() < drainUntil) {
    await sleep(2000);
    left = await unsent();
  }

  const copies = new Map<string, number>();
  for (const message of twilio.messages) copies.set(message.to, (copies.get(message.to) ?? 0) + 1);
  const duplicated = [...copies.values()].filter((count) => count > 1).length;
  const lookups = twilio.requests.filter((request) => request.method === 'GET');
  const rows = await Promise.all(ids.map((id) => call('GET', `/messages/${id}`)));
  const retried = rows.filter((row) => Number(row.body.attempts) > 1).length;
  // A lookup saved a send when Twilio had already created the copy (a POST for that number answered 201 came
  // first): a blind retry would have sent it twice. The other lookups found nothing and the retry sent it.
  const saved = new Set(
    lookups
      .filter((lookup) => twilio.requests.slice(0, twilio.requests.indexOf(lookup)).some((earlier) => earlier.method === 'POST' && earlier.status === 201 && earlier.params.To === lookup.params.To))
      .map((lookup) => lookup.params.To),
  ).size;
  const figures = {
    messages: ids.length,
    answerDelayMs: ANSWER_DELAY_MS,
    workerKills: kills,
    notSent: left.length,
    retried,
    lookups: lookups.length,
    sendsSavedByLookup: saved,
    duplicated,
    duplicateRate: duplicated / ids.length,
  };
  console.log(JSON.stringify(figures, null, 2));

  for (const child of Object.values(processes)) child?.kill('SIGTERM');
  await sleep(2000);
  for (const { pid } of await leftoverServers(paths)) process.kill(pid, 'SIGTERM');
  await postgres.stop().catch(() => undefined);
  await twilio.stop();
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  process.exit(left.length || duplicated ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
