import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import jwt from 'jsonwebtoken';
import pino from 'pino';
import { createLogProvider } from '../src/activities/providers/log';
import type { MessageProvider } from '../src/activities/providers';
import { listen } from '../src/api/http/server';
import { loadConfig } from '../src/config/index';
import { setLogLevel } from '../src/logger';
import type { Prisma } from '../src/db/prisma';
import { applyMigrations } from '../src/db/migrate';
import { startEmbeddedPostgres } from '../src/stack/postgres';
import { Client as PgClient } from 'pg';
import { startTemporalEngine } from '../src/stack/temporal-engine';
import { SERVER_DATABASES } from '../src/stack/temporal-server-engine';
import type { paths } from '../src/generated/openapi';
import { createApi, openServices, runWorker, type ApiOptions } from '../src/main/services';
import { generatePayloadKey } from '../src/config/payload-keys';
import { createAdmissions } from '../src/starters/admission';
import createClient from 'openapi-fetch';
import { busyRetryingFetch, type BusyCount } from './busy-retry';

export interface BenchStackOptions {
  /** The message provider, built on the stack's database (default: the log provider). */
  provider?: (prisma: Prisma) => MessageProvider;
  /** Run the worker and the API in this process (default); false: only PostgreSQL and Temporal. */
  inProcess?: boolean;
  api?: ApiOptions;
  /** Other backpressure limits than the defaults (the isolation scenario tries some). */
  admission?: Parameters<typeof createAdmissions>[0];
}

/**
 * A throwaway stack for a benchmark run, shaped like `npm start`'s: a fresh PostgreSQL, a Temporal dev
 * server on a SQLite file with the same WAL pragmas (or, with TEMPORAL_ENGINE=server, the Temporal server
 * on that PostgreSQL), payloads encrypted, a worker and the API.
 */
export async function startBenchStack(options: BenchStackOptions = {}) {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  setLogLevel('warn'); // one line per delivered message would drown the figures
  const environment = loadConfig();
  const dir = await mkdtemp(join(tmpdir(), 'crm-bench-'));
  const sqlitePath = join(dir, 'temporal.sqlite');
  const postgres = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres') });
  const databaseUrl = await postgres.appDatabase('bench');
  await applyMigrations(databaseUrl);
  // TEMPORAL_ENGINE=server: the Temporal server on this stack's PostgreSQL instead of the dev server.
  const temporalServer = await startTemporalEngine(environment, {
    dbFilename: sqlitePath,
    dir: join(dir, 'temporal-server'),
    postgresAdminUrl: async () => postgres.adminUrl(),
  });
  const secret = randomBytes(32).toString('hex');
  const payloadKeys = generatePayloadKey('bench');
  const secretsKey = generatePayloadKey('bench-secrets');
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: '20',
    TEMPORAL_ADDRESS: temporalServer.address,
    TEMPORAL_TASK_QUEUE: 'bench',
    JWT_SECRET: secret,
    MESSAGE_PROVIDER: 'log',
    TEMPORAL_PAYLOAD_KEYS: payloadKeys,
    SECRETS_KEY: secretsKey,
  });
  const services = await openServices(config);
  services.provider = (options.provider ?? createLogProvider)(services.prisma);
  if (options.admission) services.admission = createAdmissions(options.admission);
  const inProcess = options.inProcess ?? true;
  const worker = inProcess ? await runWorker(services) : undefined;
  const http = inProcess
    ? await listen(createApi(services, { log: (e) => console.error(e), logger: pino({ level: 'silent' }), ...options.api }), 0, '127.0.0.1')
    : undefined;
  const tokenFor = (userId: string) => jwt.sign({}, secret, { algorithm: 'HS256', subject: userId, expiresIn: '4h' });
  const token = tokenFor('bench-user');
  const busy: BusyCount = { answered503: 0 };
  /** `retryBusy: false` hands a 503 to the caller, for a scenario that counts it itself. */
  const clientWith = (baseUrl: string, bearer: string, retryBusy = true) =>
    createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${bearer}` }, ...(retryBusy && { fetch: busyRetryingFetch(busy) }) });
  const clientFor = (baseUrl: string, options: { retryBusy?: boolean } = {}) => clientWith(baseUrl, token, options.retryBusy);
  return {
    dir,
    sqlitePath,
    /** What the worker and API processes of a deployment would be given (scale runs them apart). */
    env: { DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalServer.address, TEMPORAL_TASK_QUEUE: 'bench', JWT_SECRET: secret, TEMPORAL_PAYLOAD_KEYS: payloadKeys, SECRETS_KEY: secretsKey },
    temporalAddress: temporalServer.address,
    services,
    prisma: services.prisma,
    temporal: services.temporal,
    taskQueue: services.taskQueue,
    scope: { business: 'bench', ownerId: 'bench-user' },
    /**
     * The typed client generated from the OpenAPI document, as the benchmark's user of business `bench`;
     * a 503 is waited out for its Retry-After, sent again and counted in `busy`.
     */
    api: clientFor(`http://127.0.0.1:${http?.port ?? 0}`),
    clientFor,
    baseUrl: `http://127.0.0.1:${http?.port ?? 0}`,
    /** The same client as another user of the business. */
    apiAs: (userId: string) => clientWith(`http://127.0.0.1:${http?.port ?? 0}`, tokenFor(userId)),
    /** A bearer token of another user of the stack, for a client that is not the typed one (a flood). */
    tokenFor,
    /** 503s the clients were answered (the API's backpressure), waited out and retried. */
    busy,
    path: { businessname: 'bench' },
    /** Which Temporal ran: the dev server or the server engine. */
    engine: temporalServer.engine,
    /** Bytes of the dev server's SQLite file with its write-ahead log (the server engine's data is in PostgreSQL). */
    async temporalStorageBytes() {
      if (temporalServer.engine === 'server') return serverEngineDatabaseBytes(postgres.adminUrl());
      const sizes = await Promise.all(['', '-wal'].map((suffix) => stat(sqlitePath + suffix).then((s) => s.size, () => 0)));
      return sizes[0] + sizes[1];
    },
    /** The largest tables of the app's database and (server engine) of Temporal's two, in MB: what storage is made of. */
    async storageBreakdown() {
      const databases = ['bench', ...(temporalServer.engine === 'server' ? Object.values(SERVER_DATABASES) : [])];
      const breakdown: Record<string, Record<string, number>> = {};
      for (const database of databases) breakdown[database] = await largestTables(postgres.adminUrl(database));
      if (temporalServer.engine !== 'server') breakdown['dev server SQLite (file + WAL)'] = { total: +((await this.temporalStorageBytes()) / 2 ** 20).toFixed(1) };
      return breakdown;
    },
    async stop() {
      await http?.stop();
      await worker?.stop();
      await services.stop();
      await temporalServer.stop();
      await postgres.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The eight largest tables of one database with their indexes and TOAST, in MB, and the database's total. */
async function largestTables(url: string): Promise<Record<string, number>> {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 2 DESC LIMIT 8`,
    );
    const total = await client.query('SELECT pg_database_size(current_database())::bigint AS bytes');
    const mb = (bytes: unknown) => +(Number(bytes) / 2 ** 20).toFixed(1);
    return { total: mb(total.rows[0].bytes), ...Object.fromEntries(rows.map((r) => [r.name, mb(r.bytes)])) };
  } finally {
    await client.end();
  }
}

/** Bytes of the server engine's two databases. */
async function serverEngineDatabaseBytes(adminUrl: string): Promise<number> {
  const client = new PgClient({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT sum(pg_database_size(datname))::bigint AS bytes FROM pg_database WHERE datname = ANY($1)', [Object.values(SERVER_DATABASES)]);
    return Number(rows[0].bytes ?? 0);
  } finally {
    await client.end();
  }
}

/** Fails unless the typed client's answer has the `expected` status. */
export async function expectStatus(call: Promise<{ response: Response; error?: unknown }>, expected: number): Promise<void> {
  const { response, error } = await call;
  if (response.status !== expected) throw new Error(`${response.url}: ${response.status} ${JSON.stringify(error)}`);
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** How many of `statuses` each status is. */
export function statusCounts(statuses: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** p50, p95, p99 and max of `values` (ms or s), rounded. */
export function distribution(values: number[], digits = 1) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (x: number) => +x.toFixed(digits);
  return sorted.length
    ? { count: sorted.length, p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1]) }
    : { count: 0, p50: NaN, p95: NaN, p99: NaN, max: NaN };
}

/** Runs `task(i)` for i < count with at most `concurrency` in flight; returns each latency in ms. */
export async function measure(count: number, concurrency: number, task: (i: number) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const { p50, p95, p99, max } = distribution(latencies);
  return { requests: count, concurrency, perSecond: +(count / seconds).toFixed(1), p50, p95, p99, max };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const rssMb = () => +(process.memoryUsage().rss / 2 ** 20).toFixed(1);

export type BenchStack = Awaited<ReturnType<typeof startBenchStack>>;

/** Runs `body` on a fresh stack, prints the figures it returns and the process's memory, and exits. */
export function runBenchmark(body: (stack: BenchStack) => Promise<Record<string, unknown>>): void {
  (async () => {
    const stack = await startBenchStack();
    try {
      const rssMbAtStart = rssMb();
      const figures = await body(stack);
      console.log(JSON.stringify({ ...figures, answered503: stack.busy.answered503 }, null, 2));
      console.log(JSON.stringify({ rssMbAtStart, rssMbAtEnd: rssMb(), heapUsedMb: +(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1) }));
    } finally {
      await stack.stop();
    }
  })().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
