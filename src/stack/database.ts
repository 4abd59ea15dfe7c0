import type { OpenDatabase } from '../config/database';
import { dataPaths } from '../paths';
import { startEmbeddedPostgres } from './postgres';

/** DATABASE_URL when given; otherwise the embedded PostgreSQL whose data lives in `DATA_DIR/postgres`, as the service's own role. */
export const provideDatabase: OpenDatabase = async (config) => {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, embedded: false, stop: async () => undefined };
  const server = await startEmbeddedPostgres({ dataDir: dataPaths(config.DATA_DIR).postgres, port: config.POSTGRES_PORT });
  const url = await server.appDatabase('crm').catch(async (error) => {
    await server.stop();
    throw error;
  });
  return { url, adminUrl: server.adminUrl(), embedded: true, stop: server.stop };
};
