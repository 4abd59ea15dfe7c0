import { memoryLogger } from '../../support/helpers';
import { originOf, startTestStack, type TestStack } from '../../support/stack';

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

test('readyz is answered from a readiness at most a second old: a burst of probes costs one database ping and one Temporal call', async () => {
  const api = await stack.startApi();
  const origin = originOf(api);
  const pings = jest.spyOn(stack.prisma, '$queryRaw');
  const temporalCalls = jest.spyOn(stack.temporal.connection.workflowService, 'getSystemInfo');
  const databasePings = () => pings.mock.calls.filter(([sql]) => Array.isArray(sql) && sql.join('?') === 'SELECT 1').length;
  try {
    const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${origin}/readyz`)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    for (let i = 0; i < 20; i++) expect((await fetch(`${origin}/readyz`)).status).toBe(200);
    expect(databasePings()).toBe(1);
    expect(temporalCalls).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await (await fetch(`${origin}/readyz`)).json()).toEqual({ status: 'ready', database: 'ok', temporal: 'ok' });
    expect(databasePings()).toBe(2);
  } finally {
    pings.mockRestore();
    temporalCalls.mockRestore();
    await api.stop();
  }
});

test('readyz takes PUBLIC_DOOR_LIMIT_PER_SOURCE requests a minute from one address (429 with Retry-After beyond); another address is still answered', async () => {
  const api = await stack.startApi({ trustProxy: true, publicDoorLimits: { perSource: 30, failedPerSource: 0, failedTotal: 0 } });
  const probe = (source: string) => fetch(`${originOf(api)}/readyz`, { headers: { 'x-forwarded-for': source } });
  try {
    const statuses = (await Promise.all(Array.from({ length: 40 }, () => probe('198.51.100.20')))).map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    const refused = await probe('198.51.100.20');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await probe('10.0.0.2')).status).toBe(200);
  } finally {
    await api.stop();
  }
});
