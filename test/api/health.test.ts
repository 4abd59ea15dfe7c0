import { memoryLogger } from '../support/helpers';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
const { logger, lines } = memoryLogger();
beforeAll(async () => {
  stack = await startTestStack({ logger });
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
  lines.length = 0;
  const token = stack.token('log-user');
  await stack.api('GET', '/agents?secret=hidden', { token });
  await stack.api('GET', '/agents');
  const requests = lines.filter((line) => line.event === 'http.request');
  expect(requests).toEqual([
    expect.objectContaining({ req: { id: expect.any(String), method: 'GET', path: `/ext/v2/${stack.business}/agents` }, res: { status: 200 }, responseTime: expect.any(Number), user: 'log-user' }),
    expect.objectContaining({ req: { id: expect.any(String), method: 'GET', path: `/ext/v2/${stack.business}/agents` }, res: { status: 401 }, responseTime: expect.any(Number) }),
  ]);
  expect(requests[1].user).toBeUndefined();
  expect(JSON.stringify(lines)).not.toContain('hidden');
});
