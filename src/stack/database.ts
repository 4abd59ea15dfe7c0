import type { Config } from '../config/index';
import { dataPaths } from '../paths';
import { startEmbeddedPostgres } from './postgres';

export interface Database {
  url: string;
  /** A superuser's URL on the embedded PostgreSQL (for the Temporal server engine's role and databases); absent with DATABASE_URL. */
  adminUrl?: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** DATABASE_URL when given; otherwise the embedded PostgreSQL whose data lives in `DATA_DIR/postgres`, as the service's own role. */
export async function provideDatabase(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'POSTGRES_PORT'>): Promise<Database> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, embedded: false, stop: async () => undefined };
  const server = await startEmbeddedPostgres({ dataDir: dataPaths(config.DATA_DIR).postgres, port: config.POSTGRES_PORT });
  const url = await server.appDatabase('crm').catch(async (error) => {
    await server.stop();
    throw error;
  });
  return { url, adminUrl: server.adminUrl(), embedded: true, stop: server.stop };
}
