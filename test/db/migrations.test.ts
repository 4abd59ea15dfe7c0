import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { createEmptyDatabase } from '../support/database';
import { testDir } from '../support/temp-dir';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

/** A new, empty database on the run's PostgreSQL server. */
const freshDatabase = () => createEmptyDatabase('drift');

async function migrateCli(command: string, env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(join(root, 'node_modules/.bin/tsx'), ['src/main/migrate.ts', command], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '', ...env },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

test('the migrations build exactly the schema that schema.prisma describes', async () => {
  const url = await freshDatabase();
  const deploy = await migrateCli('deploy', { DATABASE_URL: url });
  expect(deploy.code).toBe(0);
  expect(deploy.output).toMatch(/applied: \d+_init/);

  const check = await migrateCli('check', { DATABASE_URL: url });
  expect(check.output).toContain('no drift');
  expect(check.code).toBe(0);

  const db = new Client({ connectionString: url });
  await db.connect();
  const { rows } = await db.query(`SELECT migration_name, finished_at FROM _prisma_migrations`);
  await db.end();
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.every((r) => r.finished_at !== null)).toBe(true);
});

test('the drift check fails when schema.prisma has a change no migration makes', async () => {
  const url = await freshDatabase();
  const schema = await readFile(join(root, 'prisma/schema.prisma'), 'utf8');
  const changed = schema.replace(/model Agent \{/, 'model Agent {\n  nickname String?');
  expect(changed).not.toBe(schema);
  const dir = await testDir('drift-');
  const schemaPath = join(dir, 'schema.prisma');
  await writeFile(schemaPath, changed);

  const check = await migrateCli('check', { DATABASE_URL: url, PRISMA_SCHEMA_PATH: schemaPath });
  expect(check.code).toBe(1);
  expect(check.output).toMatch(/ALTER TABLE "agents" ADD COLUMN\s+"nickname" TEXT/);
});
