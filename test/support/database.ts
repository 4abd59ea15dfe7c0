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

/** A Prisma client on the run's database for the calling test file, opened before its tests and closed after them. */
export function databaseForFile(): () => Prisma {
  let prisma: Prisma;
  beforeAll(() => {
    prisma = createPrisma(process.env.TEST_DATABASE_URL!, 1);
  });
  afterAll(() => prisma.$disconnect());
  return () => prisma;
}
