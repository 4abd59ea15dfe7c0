import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { createPrisma, type Prisma } from '../../src/db/prisma';

/** A new, empty database named after `prefix` on the run's PostgreSQL server; returns its URL. */
export async function createEmptyDatabase(prefix: string): Promise<string> {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  const name = `${prefix}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A new database with every migration applied, as a deployment's `migrate` job leaves it; returns its URL.
 * The migrations run in a process of their own: the schema engine's WebAssembly does not load under jest.
 */
export async function createMigratedDatabase(prefix: string): Promise<string> {
  const url = await createEmptyDatabase(prefix);
  const root = join(__dirname, '..', '..');
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', DATABASE_URL: url };
  delete env.TEMPORAL_DEBUG;
  await promisify(execFile)(join(root, 'node_modules/.bin/tsx'), ['src/main/migrate.ts', 'deploy'], { cwd: root, env, timeout: 60_000 });
  return url;
}

/** A Prisma client on the run's database for the calling test file, opened before its tests and closed after them. */
export function databaseForFile(): () => Prisma {
  let prisma: Prisma;
  beforeAll(() => {
    prisma = createPrisma(process.env.TEST_DATABASE_URL!, 1);
  });
  afterAll(() => prisma.$disconnect());
  return () => prisma;
}
