import type { Config } from '../config';
import { dataPaths } from '../paths';
import { startEmbeddedPostgres } from './postgres';

export interface Database {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** DATABASE_URL when given; otherwise the embedded PostgreSQL whose data lives in `DATA_DIR/postgres`. */
export async function provideDatabase(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'POSTGRES_PORT'>): Promise<Database> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, embedded: false, stop: async () => undefined };
  const server = await startEmbeddedPostgres({ dataDir: dataPaths(config.DATA_DIR).postgres, port: config.POSTGRES_PORT, database: 'crm' });
  return { url: server.url, embedded: true, stop: server.stop };
}
