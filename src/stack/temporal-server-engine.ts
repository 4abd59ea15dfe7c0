import { spawn, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { PROJECT_ROOT } from '../paths';
import { ensureSearchAttributes } from '../starters/search-attributes';
import { stopChild } from './child-processes';
import { ensureNamespace } from './nexus-endpoint';
import { freePort } from '../net/free-port';
import { installTemporalServer } from './temporal-server-install';
import type { RunningDevServer } from './temporal-server';

const run = promisify(execFile);

/** The dynamic configuration compose.yaml's server loads too. */
export const DYNAMIC_CONFIG_PATH = join(PROJECT_ROOT, 'deploy', 'temporal', 'dynamic-config.yaml');
/** The frontend HTTP address the committed dynamic config names (compose's server, inside its container). */
const COMPOSE_FRONTEND_HTTP = 'localhost:7243';

/** The server's own role and databases on the stack's PostgreSQL, apart from the service's. */
export const SERVER_ROLE = 'temporal';
export const SERVER_DATABASES = { default: 'temporal', visibility: 'temporal_visibility' } as const;

export interface ServerEngineOptions {
  /** A PostgreSQL URL whose role may create roles and databases (the stack's own administrator). */
  adminUrl: string;
  TOOLS_DIR: string;
  /** Where the engine writes its configuration and log. */
  dir: string;
  /** The frontend's gRPC port; a free one when absent or taken. */
  port?: number;
  /** Fixed once the databases are set up: Temporal cannot change it later. */
  historyShards?: number;
  /** More namespaces beside `default`. */
  namespaces?: string[];
  log?: (line: string) => void;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The server's role (its password set anew at each start) and its two databases, created when missing. */
async function prepareDatabases(adminUrl: string, password: string): Promise<{ host: string; port: number }> {
  const admin = new PgClient({ connectionString: adminUrl });
  await admin.connect();
  try {
    const role = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [SERVER_ROLE]);
    const literal = `'${password}'`; // hex: nothing to escape
    await admin.query(`${role.rowCount ? 'ALTER' : 'CREATE'} ROLE ${quoteIdent(SERVER_ROLE)} LOGIN PASSWORD ${literal}`);
    for (const database of Object.values(SERVER_DATABASES)) {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (!exists.rowCount) await admin.query(`CREATE DATABASE ${quoteIdent(database)} OWNER ${quoteIdent(SERVER_ROLE)}`);
    }
  } catch (error) {
    throw new Error(`The Temporal server engine could not create its role and databases on ${new URL(adminUrl).host}: ${(error as Error).message}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  return { host: url.hostname, port: Number(url.port || 5432) };
}

/** Sets up or upgrades both schemas with the sql tool and the schemas compiled into it (`schema/postgresql/v12`). */
async function applySchemas(sqlTool: string, db: { host: string; port: number; password: string }): Promise<void> {
  for (const [kind, database] of Object.entries(SERVER_DATABASES)) {
    const common = ['--endpoint', db.host, '--port', String(db.port), '--user', SERVER_ROLE, '--password', db.password, '--database', database, '--plugin', 'postgres12', '--quiet'];
    const schema = `postgresql/v12/${kind === 'default' ? 'temporal' : 'visibility'}`;
    try {
      await run(sqlTool, [...common, 'setup-schema', '-v', '0.0'], { timeout: 120_000 });
      await run(sqlTool, [...common, 'update-schema', '--schema-name', schema], { timeout: 300_000 });
    } catch (error) {
      const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(`Temporal's schema ${schema} could not be applied to database ${database}: ${stderr || stdout || message}`);
    }
  }
}

interface Ports {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  metrics: number;
}

/** The server's configuration, modelled on the module's `config/development-postgres12.yaml` (JSON is YAML). */
function serverConfig(options: { db: { host: string; port: number; password: string }; ports: Ports; shards: number; dynamicConfig: string }) {
  const { db, ports } = options;
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${db.host}:${db.port}`,
      connectProtocol: 'tcp',
      user: SERVER_ROLE,
      password: db.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number, extra: object = {}) => ({ rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra } });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: options.shards,
      datastores: { 'postgres-default': datastore(SERVER_DATABASES.default, 20), 'postgres-visibility': datastore(SERVER_DATABASES.visibility, 4) },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      metrics: { prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `127.0.0.1:${ports.metrics}` } },
    },
    services: {
      frontend: service(ports.frontend, ports.frontendMembership, { httpPort: ports.frontendHttp }),
      history: service(ports.history, ports.historyMembership),
      matching: service(ports.matching, ports.matchingMembership),
      worker: service(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${ports.frontend}` } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: options.dynamicConfig, pollInterval: '10s' },
  };
}

/*
 * The server records its membership ports in a PostgreSQL smallint, so they must be below 32768, where
 * the kernel's ephemeral ports (32768 and up) never are. Free ones are found among 10000–19999: 20000 and
 * up is where the tests claim the ports of the stacks they start (test/support/ports.ts), and a server
 * picking one of them at random could take a port a test has claimed but its process not bound yet.
 */
const LOW_PORTS = { from: 10_000, to: 19_999 };
/** A port the caller asks for (TEMPORAL_PORT) is taken up to the smallint's limit. */
const MAX_MEMBERSHIP_PORT = 32_767;

async function freePorts(preferredFrontend?: number): Promise<Ports> {
  const taken = new Set<number>();
  const next = async (preferred = 0) => {
    for (;;) {
      const candidate = preferred || LOW_PORTS.from + Math.floor(Math.random() * (LOW_PORTS.to - LOW_PORTS.from + 1));
      preferred = 0;
      const port = await freePort(candidate);
      if (port === candidate && port <= MAX_MEMBERSHIP_PORT && !taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  return {
    frontend: await next(preferredFrontend),
    frontendHttp: await next(),
    frontendMembership: await next(),
    history: await next(),
    historyMembership: await next(),
    matching: await next(),
    matchingMembership: await next(),
    worker: await next(),
    workerMembership: await next(),
    metrics: await next(),
  };
}

/**
 * The ports of the last run when they are all free again, else new ones (kept for the next run). A
 * restart on the same ports is the same cluster member: on new ones the server first waits for the
 * old member's shards to time out, which made a restart take a minute instead of seconds.
 */
async function portsOf(file: string, preferredFrontend?: number): Promise<Ports> {
  const last = JSON.parse(await readFile(file, 'utf8').catch(() => 'null')) as Ports | null;
  if (last && (!preferredFrontend || last.frontend === preferredFrontend)) {
    const free = await Promise.all(Object.values(last).map(async (port) => (await freePort(port)) === port));
    if (free.every(Boolean)) return last;
  }
  const ports = await freePorts(preferredFrontend);
  await writeFile(file, JSON.stringify(ports));
  return ports;
}

/** Stops the process: SIGTERM, then SIGKILL after `graceMs`. */
async function launch(server: string, configFile: string, logFile: string, address: string, timeoutMs = 120_000) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(server, ['--config-file', configFile, '--allow-no-auth', 'start'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`The Temporal server exited (${signal ?? code}) while starting; its log: ${logFile}`))),
  );
  exited.catch(() => undefined);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const ready = await Promise.race([
        (async () => {
          const connection = await Connection.connect({ address, connectTimeout: 2_000 }).catch(() => undefined);
          if (!connection) return false;
          try {
            const health = await connection.healthService.check({ service: 'temporal.api.workflowservice.v1.WorkflowService' });
            return health.status === 1; // SERVING
          } catch {
            return false;
          } finally {
            await connection.close();
          }
        })(),
        exited,
      ]);
      if (ready) return child;
      if (Date.now() > deadline) throw new Error(`The Temporal server did not serve on ${address} within ${timeoutMs / 1000} s; its log: ${logFile}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** The namespace's search attributes, once the frontend's namespace cache (refreshed every 10 s) knows a new namespace. */
async function searchAttributesOnceServed(connection: Connection, namespace: string, timeoutMs = 60_000) {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    try {
      return await connection.operatorService.listSearchAttributes({ namespace });
    } catch (error) {
      if ((error as { code?: number }).code !== 5 || Date.now() > deadline) throw error; // 5: NOT_FOUND
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/**
 * On existing data the frontend serves before the server's own workers have picked up the Schedules
 * again, and describing one then runs into its deadline (the worker's Schedule setup would fail). Waits
 * until one Schedule of each namespace, if any, can be described.
 */
async function schedulesServed(address: string, namespaces: string[], timeoutMs = 120_000): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    for (const namespace of namespaces) {
      const { schedules } = await connection.workflowService.listSchedules({ namespace, maximumPageSize: 1 });
      const scheduleId = schedules?.[0]?.scheduleId;
      if (!scheduleId) continue;
      for (const deadline = Date.now() + timeoutMs; ; ) {
        try {
          await connection.withDeadline(Date.now() + 5_000, () => connection.workflowService.describeSchedule({ namespace, scheduleId }));
          break;
        } catch (error) {
          if (Date.now() > deadline) throw new Error(`The Temporal server does not describe Schedule ${scheduleId} after ${timeoutMs / 1000} s: ${(error as Error).message}`);
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    }
  } finally {
    await connection.close();
  }
}

/**
 * The production engine on one machine: the Temporal server (TEMPORAL_SERVER_VERSION, built when
 * missing) on the stack's PostgreSQL, with its own role and databases, its schemas set up or upgraded,
 * the namespaces and the project's search attributes registered, as the dev server has them.
 */
export async function startServerEngine(options: ServerEngineOptions): Promise<RunningDevServer & { logFile: string; historyShards: number }> {
  const log = options.log ?? (() => undefined);
  const tools = await installTemporalServer(options.TOOLS_DIR, log);
  await mkdir(options.dir, { recursive: true });
  const password = randomBytes(16).toString('hex');
  const { host, port } = await prepareDatabases(options.adminUrl, password);
  const db = { host, port, password };
  await applySchemas(tools.sqlTool, db);

  const ports = await portsOf(join(options.dir, 'ports.json'), options.port);
  const dynamicConfig = join(options.dir, 'dynamic-config.yaml');
  const committed = await readFile(DYNAMIC_CONFIG_PATH, 'utf8');
  await writeFile(dynamicConfig, committed.replaceAll(COMPOSE_FRONTEND_HTTP, `127.0.0.1:${ports.frontendHttp}`));
  const historyShards = options.historyShards ?? 4;
  const configFile = join(options.dir, 'config.yaml');
  await writeFile(configFile, JSON.stringify(serverConfig({ db, ports, shards: historyShards, dynamicConfig }), null, 2), { mode: 0o600 });
  const logFile = join(options.dir, 'server.log');
  const address = `127.0.0.1:${ports.frontend}`;

  let child = await launch(tools.server, configFile, logFile, address);
  try {
    const connection = await Connection.connect({ address });
    let added = false;
    try {
      for (const namespace of ['default', ...(options.namespaces ?? [])]) {
        await ensureNamespace(connection, namespace);
        const before = await searchAttributesOnceServed(connection, namespace);
        await ensureSearchAttributes(connection.operatorService, namespace);
        const after = await connection.operatorService.listSearchAttributes({ namespace });
        added ||= Object.keys(after.customAttributes ?? {}).length !== Object.keys(before.customAttributes ?? {}).length;
      }
    } finally {
      await connection.close();
    }
    // Each service caches the search attributes for a minute; new ones reach them all at a restart.
    if (added) {
      await stopChild(child);
      child = await launch(tools.server, configFile, logFile, address);
    }
    await schedulesServed(address, ['default', ...(options.namespaces ?? [])]);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { address, namespace: 'default', logFile, historyShards, stop: () => stopChild(child) };
}
