import type { AccessLogEntry } from '../src/api/http/access-log';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;
const accessLog: AccessLogEntry[] = [];
beforeAll(async () => {
  stack = await startTestStack({ onRequest: (entry) => accessLog.push(entry) });
});
afterAll(() => stack.stop());

test('healthz answers without a token', async () => {
  const res = await stack.api('GET', '//healthz');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok' });
});

test('readyz reports the database and Temporal reachable', async () => {
  const res = await stack.api('GET', '//readyz');
  expect(res.body).toEqual({ status: 'ready', database: 'ok', temporal: 'ok' });
  expect(res.status).toBe(200);
});

test('every request is logged once: method, path without its query, status, duration and user', async () => {
  accessLog.length = 0;
  const token = stack.token('log-user');
  await stack.api('GET', '/agents?secret=hidden', { token });
  await stack.api('GET', '/agents');
  expect(accessLog).toEqual([
    { method: 'GET', path: `/ext/v2/${stack.business}/agents`, status: 200, ms: expect.any(Number), user: 'log-user' },
    { method: 'GET', path: `/ext/v2/${stack.business}/agents`, status: 401, ms: expect.any(Number), user: undefined },
  ]);
});
