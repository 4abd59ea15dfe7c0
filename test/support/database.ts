import { Client } from 'pg';

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
