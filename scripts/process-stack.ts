import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { loadConfig } from '../src/config/index';
import { applyMigrations } from '../src/db/migrate';
import { freePort } from '../src/net/free-port';
import { startEmbeddedPostgres, type RunningPostgres } from '../src/stack/postgres';
import { leftoverServers } from '../src/stack/stack-lock';
import { startDevServer } from '../src/stack/temporal-server';
import { dataPaths, PROJECT_ROOT } from '../src/paths';
import { generatePayloadKey } from '../src/config/payload-keys';

/*
 * The production shape the fault scripts kill parts of, on one machine: PostgreSQL and a Temporal dev
 * server in a temporary directory, `dist/main/api.js` and `dist/main/worker.js` as separate processes
 * (built first if the sources changed), and a caller of the API with a token of its own.
 */

export type ProcessName = 'api' | 'worker';

export interface ProcessStackOptions {
  /** Names the temporary directory, the payload keys and the business the caller uses. */
  name: string;
  dirPrefix: string;
  user: string;
  /** The provider's settings, merged over the stack's. */
  env: Record<string, string>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

export async function startProcessStack({ name, dirPrefix, user, env: providerEnv }: ProcessStackOptions) {
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts/build-if-changed.js')], { stdio: 'inherit' });
  const dir = await mkdtemp(join(tmpdir(), dirPrefix));
  const paths = dataPaths(dir);
  const config = loadConfig({ ...process.env, DATA_DIR: dir });
  const secret = randomBytes(32).toString('hex');
  const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: user, expiresIn: '2h' });

  const pgPort = await freePort();
  const startPostgres = () => startEmbeddedPostgres({ dataDir: paths.postgres, port: pgPort });
  let postgres: RunningPostgres = await startPostgres();
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
    TEMPORAL_PAYLOAD_KEYS: generatePayloadKey(name),
    SECRETS_KEY: generatePayloadKey(`${name}-secrets`),
    JWT_SECRET: secret,
    PORT: String(apiPort),
    WORKER_HTTP_PORT: '0',
    API_METRICS_PORT: '0',
    ...providerEnv,
    LOG_LEVEL: 'error',
  };
  const processes: Record<ProcessName, ChildProcess | undefined> = { api: undefined, worker: undefined };
  const startProcess = (process_: ProcessName) => {
    processes[process_] = spawn(process.execPath, [join(PROJECT_ROOT, 'dist', 'main', `${process_}.js`)], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  };
  /** kill -9, resolved once it has exited. */
  const killProcess = async (process_: ProcessName) => {
    const child = processes[process_]!;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  startProcess('worker');
  startProcess('api');

  const base = `http://127.0.0.1:${apiPort}/ext/v2/${name}`;
  /** The caller's request, with an Idempotency-Key when given one. */
  const call = async <Body = Record<string, unknown>>(method: string, path: string, body?: unknown, key?: string) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key && { 'Idempotency-Key': key }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: (await response.json().catch(() => ({}))) as Body };
  };

  return {
    paths,
    call,
    startProcess,
    killProcess,
    startTemporal,
    /** Starts PostgreSQL again on its port and data, after it was stopped. */
    restartPostgres: async () => {
      postgres = await startPostgres();
    },
    /** Stops every process and server it started and removes the directory. */
    stop: async () => {
      for (const child of Object.values(processes)) child?.kill('SIGTERM');
      await sleep(2000);
      for (const { pid } of await leftoverServers(paths)) process.kill(pid, 'SIGTERM');
      await postgres.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}
