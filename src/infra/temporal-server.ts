import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import { findTemporalCli, type ToolsConfig } from './temporal-cli';

export interface DevServerOptions {
  /** File that keeps the server's state across restarts; in memory when absent. */
  dbFilename?: string;
  port?: number;
  uiPort?: number;
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
      extraArgs: (options.namespaces ?? []).flatMap((namespace) => ['--namespace', namespace]),
    },
  });
  return {
    address: env.address,
    namespace: env.namespace ?? 'default',
    uiUrl: options.uiPort !== undefined ? `http://127.0.0.1:${options.uiPort}` : undefined,
    stop: () => env.teardown(),
  };
}
