import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import pino, { type Logger } from 'pino';
import { createPrisma, type Prisma } from '../../src/db/prisma';
import { createLogger } from '../../src/logger';
import { addSearchAttributes } from '../../src/starters/search-attributes';
import type { ApiResponse } from './http';

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
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

/** A new number at each call, `first` + 1 onwards after `prefix`: matching and opt-outs are per number, so each test takes its own. */
export function phoneSequence(prefix: string, first: number): () => string {
  let count = 0;
  return () => `${prefix}${String(first + ++count).padStart(4, '0')}`;
}

/** The error `promise` rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** A problem's `instance`: the request id the answer also carries in X-Request-Id. */
export const REQUEST_INSTANCE = expect.stringMatching(/^urn:request:[A-Za-z0-9._:-]+$/);

/** A problem body without its per-request `instance`, to compare two answers for being the same. */
export function problemOf(body: Record<string, unknown>): Record<string, unknown> {
  const { instance: _instance, ...problem } = body;
  return problem;
}

/** An RFC 9457 answer with this status and, when given, exactly this detail (or one matching it), and this hint (none unless given). */
export function expectProblem(res: ApiResponse, status: number, detail: string | RegExp = /.+/, hint?: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: {
      type: expect.any(String),
      title: expect.any(String),
      status,
      detail: typeof detail === 'string' ? detail : expect.stringMatching(detail),
      ...(hint !== undefined && { hint }),
      instance: REQUEST_INSTANCE,
    },
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

type Api = (method: string, path: string, options: { token: string }) => Promise<ApiResponse>;

/** Polls `GET /messages/{id}` until the message has `status`; returns its view. */
export function waitForStatus(api: Api, token: string, id: string, status: string, timeoutMs = 30_000): Promise<any> {
  return eventually(async () => {
    const message = (await api('GET', `/messages/${id}`, { token })).body;
    return message.status === status ? message : undefined;
  }, timeoutMs);
}

/** The Temporal SDK's runtime, once per test process, logging errors only. */
export function quietTemporalRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed in this process by an earlier suite
  }
}

/** The time-skipping test server that the global setup found or installed. */
/** The time-skipping server, knowing the search attributes the workflows set (as a cluster must). */
/** The time-skipping test server and a database client, for the suites whose real activities wait months; `close` closes both. */
export async function openTimeSkipping(): Promise<{ env: TestWorkflowEnvironment; prisma: Prisma; close(): Promise<void> }> {
  const env = await createTimeSkippingEnvironment();
  const prisma = createPrisma(process.env.TEST_DATABASE_URL!, 3);
  const close = async () => {
    await env.teardown();
    await prisma.$disconnect();
  };
  return { env, prisma, close };
}

export async function createTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  quietTemporalRuntime();
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  const env = await TestWorkflowEnvironment.createTimeSkipping(path ? { server: { executable: { type: 'existing-path', path } } } : undefined);
  await addSearchAttributes(env.connection.operatorService, env.namespace ?? 'default');
  return env;
}

export const silentLogger: Logger = pino({ level: 'silent' });

/** The process's kind of logger (same format and redaction) whose lines a test can read back as objects. */
export function memoryLogger(): { logger: Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const logger = createLogger({ write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** A send's answer, its carrier reference there (a send whose answer was read). */
export async function withRef<T extends { providerRef?: string }>(promise: Promise<T>): Promise<T & { providerRef: string }> {
  const accepted = await promise;
  expect(accepted.providerRef).toEqual(expect.any(String));
  return accepted as T & { providerRef: string };
}
