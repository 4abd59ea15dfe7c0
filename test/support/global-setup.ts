import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { applyMigrations } from '../../src/infra/migrate';
import { WORKFLOW_INTERCEPTORS_PATH, WORKFLOWS_PATH } from '../../src/paths';
import { startEmbeddedPostgres } from '../../src/infra/postgres';
import { startDevServer } from '../../src/infra/temporal-server';
import { findTimeSkippingTestServer } from '../../src/infra/temporal-cli';
import { NEXUS_CALLER_NAMESPACE } from './nexus-namespace';

/**
 * Starts PostgreSQL and the Temporal development server once per run (or uses TEST_DATABASE_URL /
 * TEST_TEMPORAL_ADDRESS), applies the migrations and bundles the workflows once for every suite.
 */
export default async function globalSetup(): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), 'crm-test-'));
  const config = loadConfig();
  const stops: (() => Promise<void>)[] = [];

  const [database, temporal, bundle, testServer] = await Promise.all([
    (async () => {
      if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, admin: undefined };
      const server = await startEmbeddedPostgres({ dataDir: join(workDir, 'postgres'), database: 'crm_test' });
      stops.push(server.stop);
      return { url: server.url, admin: server.urlFor('postgres') };
    })(),
    (async () => {
      if (process.env.TEST_TEMPORAL_ADDRESS) return { address: process.env.TEST_TEMPORAL_ADDRESS };
      const server = await startDevServer(config, { namespaces: [NEXUS_CALLER_NAMESPACE] });
      stops.push(server.stop);
      return { address: server.address };
    })(),
    bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [WORKFLOW_INTERCEPTORS_PATH], logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: console.warn, error: console.error } }),
    findTimeSkippingTestServer(config),
  ]);
  await applyMigrations(database.url);

  const bundlePath = join(workDir, 'workflow-bundle.js');
  await writeFile(bundlePath, bundle.code);
  process.env.TEST_DATABASE_URL = database.url;
  if (database.admin) process.env.TEST_DATABASE_ADMIN_URL = database.admin;
  process.env.TEST_TEMPORAL_ADDRESS = temporal.address;
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  if (testServer) process.env.TEMPORAL_TEST_SERVER_PATH = testServer;
  (globalThis as { __stopTestStack?: () => Promise<void> }).__stopTestStack = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error(error));
  };
}
