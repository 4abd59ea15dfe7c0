import type { Config } from './index';

/** The database a command works on, and how to let it go when done. */
export interface Database {
  url: string;
  /** A superuser's URL on the embedded PostgreSQL (for the Temporal server engine's role and databases); absent with DATABASE_URL. */
  adminUrl?: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** How a command finds its database: a deployment's from DATABASE_URL, a checkout's may start the embedded one. */
export type OpenDatabase = (config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'POSTGRES_PORT'>) => Promise<Database>;

/** DATABASE_URL only: a deployment's commands never start a database of their own. */
export const configuredDatabase: OpenDatabase = async (config) => {
  if (!config.DATABASE_URL) throw new Error('set DATABASE_URL (in a checkout, the npm run scripts use the embedded database without it)');
  return { url: config.DATABASE_URL, embedded: false, stop: async () => undefined };
};
