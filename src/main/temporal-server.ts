import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { loadConfig, type Config } from '../config/index';
import { dataPaths } from '../paths';
import { onShutdown } from './shutdown';
import { ensureNexusEndpoint } from '../stack/nexus-endpoint';
import { startEmbeddedPostgres } from '../stack/postgres';
import { startServerEngine } from '../stack/temporal-server-engine';
import { installTemporalServer, serverToolsDir, TEMPORAL_SERVER_VERSION } from '../stack/temporal-server-install';
import { installTemporalUi, TEMPORAL_UI_VERSION } from '../stack/temporal-ui-server';

/**
 * `npm run temporal:server`: builds the Temporal server when missing, then runs it on DATABASE_URL's
 * PostgreSQL (a role allowed to create roles and databases) or on an embedded one of its own, with the
 * namespace, search attributes and Nexus endpoint registered, until Ctrl-C.
 * `-- --install-only` builds it and the UI npm start runs beside it, and stops there (CI runs it first so
 * that the build's time shows on its own).
 */
async function main() {
  const config = loadConfig();
  const started = Date.now();
  const tools = await installTemporalServer(config.TOOLS_DIR, (line) => console.log(line));
  console.log(`Temporal server ${TEMPORAL_SERVER_VERSION}: ${tools.server}, sql tool ${tools.sqlTool} (${Math.round((Date.now() - started) / 1000)} s)`);
  if (process.argv.includes('--install-only')) {
    // npm start's server engine runs the UI beside it; built here too, so that nothing is built later.
    const uiStarted = Date.now();
    const ui = await installTemporalUi(config.TOOLS_DIR, (line) => console.log(line)).catch((error: Error) => `not built (${error.message}); npm start runs without it`);
    console.log(`Temporal UI ${TEMPORAL_UI_VERSION}: ${ui} (${Math.round((Date.now() - uiStarted) / 1000)} s)`);
    return;
  }

  const dir = `${dataPaths(config.DATA_DIR).temporalServer}-standalone`;
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error(error));
  };
  onShutdown(stopAll);
  try {
    await serve(config, dir, stops);
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function serve(config: Config, dir: string, stops: (() => Promise<void>)[]) {
  let adminUrl = config.DATABASE_URL;
  if (!adminUrl) {
    const postgres = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres') });
    stops.push(postgres.stop);
    adminUrl = postgres.adminUrl();
  }
  const t0 = Date.now();
  const server = await startServerEngine({ adminUrl, TOOLS_DIR: config.TOOLS_DIR, dir, port: config.TEMPORAL_PORT, historyShards: config.TEMPORAL_HISTORY_SHARDS, log: console.log });
  stops.push(server.stop);
  const connection = await Connection.connect({ address: server.address });
  await ensureNexusEndpoint(connection, { name: config.NEXUS_ENDPOINT, namespace: server.namespace, taskQueue: config.TEMPORAL_TASK_QUEUE });
  await connection.close();
  console.log(`
  Temporal     ${server.address} (server ${TEMPORAL_SERVER_VERSION} on PostgreSQL, ${server.historyShards} history shards; up in ${Math.round((Date.now() - t0) / 1000)} s)
  Nexus        endpoint ${config.NEXUS_ENDPOINT} → namespace ${server.namespace}, task queue ${config.TEMPORAL_TASK_QUEUE}
  Log          ${server.logFile}
  Binaries     ${serverToolsDir(config.TOOLS_DIR)}
  Use it       TEMPORAL_ADDRESS=${server.address} npm start   (or TEMPORAL_ENGINE=server npm start runs its own)
  Ctrl-C stops it.
`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
