import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import { findTemporalCli, type ToolsConfig } from './temporal-cli';

export interface DevServerOptions {
  /** File that keeps the server's state across restarts; in memory when absent. */
  dbFilename?: string;
  /** SQLite pragmas for the file; WAL_PRAGMAS unless given. */
  sqlitePragmas?: string[];
  port?: number;
  uiPort?: number;
  /** The remote codec the UI calls to show encrypted payloads. */
  uiCodecEndpoint?: string;
  /** More namespaces to create at launch, beside `default` (the tests' Nexus callers live in one). */
  namespaces?: string[];
}

export interface RunningDevServer {
  address: string;
  namespace: string;
  uiUrl?: string;
  stop(): Promise<void>;
}

/** Starts `temporal server start-dev` with this project's search attributes registered. */
/**
 * Write-ahead logging with `synchronous=normal`: about twice the dev server's write throughput (see
 * `npm run bench:dev-server`). A crash of the server process loses nothing; a crash of the machine
 * may lose the last transactions, an accepted trade for the development server (production runs a
 * Temporal cluster on its own database).
 */
export const WAL_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

export async function startDevServer(config: ToolsConfig, options: DevServerOptions = {}): Promise<RunningDevServer> {
  const cli = await findTemporalCli(config);
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
      ip: '127.0.0.1',
      port: options.port,
      dbFilename: options.dbFilename,
      ui: options.uiPort !== undefined,
      uiPort: options.uiPort,
      searchAttributes: SEARCH_ATTRIBUTE_KEYS,
      log: { format: 'pretty', level: 'warn' },
      extraArgs: [
        ...(options.dbFilename ? (options.sqlitePragmas ?? WAL_PRAGMAS).flatMap((pragma) => ['--sqlite-pragma', pragma]) : []),
        ...(options.namespaces ?? []).flatMap((namespace) => ['--namespace', namespace]),
        ...(options.uiCodecEndpoint && options.uiPort !== undefined ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
      ],
    },
  });
  return {
    address: env.address,
    namespace: env.namespace ?? 'default',
    uiUrl: options.uiPort !== undefined ? `http://127.0.0.1:${options.uiPort}` : undefined,
    stop: () => env.teardown(),
  };
}
