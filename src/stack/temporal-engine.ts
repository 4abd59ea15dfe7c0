import { join } from 'node:path';
import type { Config } from '../config/index';
import type { ToolsConfig } from './temporal-cli';
import { startDevServer, type DevServerOptions, type RunningDevServer } from './temporal-server';
import { startServerEngine } from './temporal-server-engine';
import { startTemporalUi } from './temporal-ui-server';

export type TemporalEngine = Config['TEMPORAL_ENGINE'];

export interface EngineOptions extends DevServerOptions {
  /** Server engine: a PostgreSQL URL allowed to create its role and databases, once the database is up. */
  postgresAdminUrl: () => Promise<string>;
  /** Server engine: where its configuration and log go. */
  dir: string;
  log?: (line: string) => void;
}

/**
 * The Temporal `TEMPORAL_ENGINE` names: the dev server (one process on SQLite, fastest to start) or
 * the server engine (the Temporal server on the stack's PostgreSQL, as production runs it).
 */
export async function startTemporalEngine(
  config: ToolsConfig & Pick<Config, 'TEMPORAL_ENGINE' | 'TEMPORAL_HISTORY_SHARDS'>,
  options: EngineOptions,
): Promise<RunningDevServer & { engine: TemporalEngine; uiNote?: string }> {
  if (config.TEMPORAL_ENGINE === 'dev') return { engine: 'dev', ...(await startDevServer(config, options)) };
  const server = await startServerEngine({
    adminUrl: await options.postgresAdminUrl(),
    TOOLS_DIR: config.TOOLS_DIR,
    dir: options.dir,
    port: options.port,
    historyShards: config.TEMPORAL_HISTORY_SHARDS,
    namespaces: options.namespaces,
    log: options.log,
  });
  if (options.uiPort === undefined) return { engine: 'server', ...server };
  // The server binary has no UI: the UI server runs beside it. Without one the stack still runs.
  const ui = await startTemporalUi({ toolsDir: config.TOOLS_DIR, dir: join(options.dir, 'ui'), address: server.address, port: options.uiPort, codecEndpoint: options.uiCodecEndpoint, log: options.log }).catch(
    (error: Error) => error,
  );
  if (ui instanceof Error) {
    return {
      engine: 'server',
      ...server,
      uiNote: `none (${ui.message}); the server engine runs without it: a Temporal UI server started with TEMPORAL_ADDRESS=${server.address} shows it`,
    };
  }
  return {
    engine: 'server',
    ...server,
    uiUrl: ui.url,
    stop: async () => {
      await ui.stop();
      await server.stop();
    },
  };
}
