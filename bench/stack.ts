import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import jwt from 'jsonwebtoken';
import pino from 'pino';
import { listen } from '../src/api/http/server';
import { loadConfig } from '../src/config';
import { applyMigrations } from '../src/infra/migrate';
import { startEmbeddedPostgres } from '../src/infra/postgres';
import { startDevServer } from '../src/infra/temporal-server';
import type { paths } from '../src/generated/openapi';
import { createApi, openServices, runWorker } from '../src/services';
import createClient from 'openapi-fetch';

/** A throwaway stack for a benchmark run: fresh PostgreSQL and Temporal dev server, worker and API. */
export async function startBenchStack() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const environment = loadConfig();
  const dir = await mkdtemp(join(tmpdir(), 'crm-bench-'));
  const postgres = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres'), database: 'bench' });
  await applyMigrations(postgres.url);
  const temporalServer = await startDevServer(environment);
  const secret = randomBytes(32).toString('hex');
  const services = await openServices({
    ...environment,
    DATABASE_URL: postgres.url,
    DATABASE_POOL_SIZE: 20,
    TEMPORAL_ADDRESS: temporalServer.address,
    TEMPORAL_TASK_QUEUE: 'bench',
    JWT_SECRET: secret,
    MESSAGE_PROVIDER: 'log',
  });
  const worker = await runWorker(services);
  const http = await listen(createApi(services, { log: (e) => console.error(e), logger: pino({ level: 'silent' }) }), 0, '127.0.0.1');
  const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'bench-user', expiresIn: '1h' });
  const baseUrl = `http://127.0.0.1:${http.port}`;
  return {
    prisma: services.prisma,
    temporal: services.temporal,
    /** The typed client generated from the OpenAPI document, as the benchmark's user of business `bench`. */
    api: createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } }),
    /** The same client as another user of the business. */
    apiAs: (userId: string) =>
      createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${jwt.sign({}, secret, { algorithm: 'HS256', subject: userId, expiresIn: '1h' })}` } }),
    path: { businessname: 'bench' },
    async stop() {
      await http.stop();
      await worker.stop();
      await services.stop();
      await temporalServer.stop();
      await postgres.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Fails unless the typed client's answer has the `expected` status. */
export async function expectStatus(call: Promise<{ response: Response; error?: unknown }>, expected: number): Promise<void> {
  const { response, error } = await call;
  if (response.status !== expected) throw new Error(`${response.url}: ${response.status} ${JSON.stringify(error)}`);
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
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
  latencies.sort((a, b) => a - b);
  return {
    requests: count,
    concurrency,
    perSecond: +(count / seconds).toFixed(1),
    p50: +percentile(latencies, 50).toFixed(1),
    p95: +percentile(latencies, 95).toFixed(1),
    p99: +percentile(latencies, 99).toFixed(1),
    max: +latencies[latencies.length - 1].toFixed(1),
  };
}

const rssMb = () => +(process.memoryUsage().rss / 2 ** 20).toFixed(1);

export type BenchStack = Awaited<ReturnType<typeof startBenchStack>>;

/** Runs `body` on a fresh stack, prints the figures it returns and the process's memory, and exits. */
export function runBenchmark(body: (stack: BenchStack) => Promise<Record<string, unknown>>): void {
  (async () => {
    const stack = await startBenchStack();
    try {
      const rssMbAtStart = rssMb();
      const figures = await body(stack);
      console.log(JSON.stringify(figures, null, 2));
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
