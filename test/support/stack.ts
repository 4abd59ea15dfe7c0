import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import jwt from 'jsonwebtoken';
import { createLogProvider } from '../../src/activities/providers/log';
import type { MessageProvider } from '../../src/activities/providers';
import { createApp, type AppDeps } from '../../src/api/app';
import { listen } from '../../src/api/server';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startWorker, type RunningWorker } from '../../src/worker';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestStack {
  business: string;
  baseUrl: string;
  taskQueue: string;
  prisma: Prisma;
  temporal: Client;
  secret: string;
  /** A valid HS256 token for `userId`. */
  token(userId: string, claims?: object, options?: jwt.SignOptions): string;
  /** A request to `/ext/v2/{business}{path}` (or to `path` itself when it starts with `//`). */
  api<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  startWorker(provider?: MessageProvider): Promise<void>;
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

function quietTemporalRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed in this process by an earlier suite
  }
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/**
 * One suite's stack on the run's shared PostgreSQL and Temporal server: its own business name and
 * task queue, a worker, and the API listening on a real port.
 */
export async function startTestStack(
  options: {
    provider?: MessageProvider;
    business?: string;
    assignTimeoutMs?: number;
    temporalAddress?: string;
    onRequest?: AppDeps['onRequest'];
  } = {},
): Promise<TestStack> {
  quietTemporalRuntime();
  const business = options.business ?? uniqueName('biz');
  const taskQueue = uniqueName('tq');
  const secret = randomBytes(32).toString('hex');
  const address = options.temporalAddress ?? process.env.TEST_TEMPORAL_ADDRESS!;
  const prisma = createPrisma(process.env.TEST_DATABASE_URL!, 5);
  const connection = await Connection.connect({ address });
  const temporal = new Client({ connection });

  let worker: RunningWorker | undefined;
  const startTestWorker = async (provider = options.provider ?? createLogProvider(prisma)) => {
    worker = await startWorker({
      address,
      namespace: 'default',
      taskQueue,
      prisma,
      temporal,
      provider,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    });
  };
  await startTestWorker();

  const app = createApp({
    prisma,
    temporal,
    taskQueue,
    auth: { secret },
    assignTimeoutMs: options.assignTimeoutMs,
    log: () => undefined,
    onRequest: options.onRequest,
  });
  const http: { server: Server; port: number; stop(): Promise<void> } = await listen(app, 0, '127.0.0.1');
  const origin = `http://127.0.0.1:${http.port}`;
  const baseUrl = `${origin}/ext/v2/${business}`;

  return {
    business,
    baseUrl,
    taskQueue,
    prisma,
    temporal,
    secret,
    token: (userId, claims = {}, signOptions = {}) =>
      jwt.sign(claims, secret, { algorithm: 'HS256', subject: userId, expiresIn: '1h', ...signOptions }),
    async api(method, path, requestOptions = {}) {
      const url = path.startsWith('//') ? `${origin}${path.slice(1)}` : `${baseUrl}${path}`;
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.token) headers.authorization = `Bearer ${requestOptions.token}`;
      let body: string | undefined = requestOptions.rawBody;
      if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(url, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed as any };
    },
    startWorker: startTestWorker,
    async stopWorker() {
      await worker?.stop();
      worker = undefined;
    },
    async stop() {
      await http.stop();
      await worker?.stop();
      await connection.close();
      await prisma.$disconnect();
      await Runtime.instance().shutdown();
    },
  };
}

/** Polls `probe` until it returns a truthy value, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T>, timeoutMs = 20_000, intervalMs = 200): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms${last ? `: ${last}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
