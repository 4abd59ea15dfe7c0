import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
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

/** An RFC 9457 answer with this status and, when given, exactly this detail (or one matching it). */
export function expectProblem(res: ApiResponse, status: number, detail: string | RegExp = /.+/): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { type: expect.any(String), title: expect.any(String), status, detail: typeof detail === 'string' ? detail : expect.stringMatching(detail) },
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
export function createTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  quietTemporalRuntime();
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  return TestWorkflowEnvironment.createTimeSkipping(path ? { server: { executable: { type: 'existing-path', path } } } : undefined);
}
