import { join } from 'node:path';
import { startEmbeddedPostgres } from './postgres';

export interface Database {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** DATABASE_URL when given; otherwise the embedded PostgreSQL whose data lives in `dataDir/postgres`. */
export async function provideDatabase(dataDir: string, databaseUrl = process.env.DATABASE_URL, port = 54329): Promise<Database> {
  if (databaseUrl) return { url: databaseUrl, embedded: false, stop: async () => undefined };
  const server = await startEmbeddedPostgres({ dataDir: join(dataDir, 'postgres'), port, database: 'crm' });
  return { url: server.url, embedded: true, stop: server.stop };
}
