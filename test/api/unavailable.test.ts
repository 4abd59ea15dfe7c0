import { Client, Connection } from '@temporalio/client';
import { createPrisma } from '../../src/db/prisma';
import { freePort } from '../../src/stack/ports';
import { startTestStack, type TestStack } from '../support/stack';

/* With the database or Temporal out of reach, callers get a 503 to retry, never a 500. */
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

async function appWith(databaseUrl: string, temporalAddress: string) {
  const prisma = createPrisma(databaseUrl, 2);
  const temporal = new Client({ connection: Connection.lazy({ address: temporalAddress, connectTimeout: 1000 }) });
  const api = await stack.startApi({ prisma, temporal, taskQueue: 'nowhere', assignTimeoutMs: 3000 });
  const token = stack.token('user-1');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await api.api(method, `/${path}`, { token, body });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type'), body: res.body };
  };
  return { call, stop: async () => { await api.stop(); await prisma.$disconnect(); await temporal.connection.close(); } };
}

test('an unreachable database answers 503 with Retry-After, and readyz says which part is down', async () => {
  const app = await appWith(`postgresql://postgres:postgres@127.0.0.1:${await freePort()}/none`, process.env.TEST_TEMPORAL_ADDRESS!);
  try {
    const created = await app.call('POST', '/ext/v2/acme/clients', { _id: 'c1' });
    expect(created).toMatchObject({ status: 503, retryAfter: '5', body: { status: 503, detail: 'A backing service is unavailable; try again shortly' } });
    expect(created.type).toContain('application/problem+json');
    const ready = await app.call('GET', '/readyz');
    expect(ready).toMatchObject({ status: 503, body: { database: 'unreachable', temporal: 'ok' } });
  } finally {
    await app.stop();
  }
});

test('an unreachable Temporal answers 503 to an assignment request, which assigns nothing', async () => {
  const app = await appWith(process.env.TEST_DATABASE_URL!, `127.0.0.1:${await freePort()}`);
  try {
    const assigned = await app.call('POST', '/ext/v2/acme-unavailable/clients/c1/assign-agents', { agents: [{ agent: 'a1' }] });
    expect(assigned).toMatchObject({ status: 503, retryAfter: '5', body: { status: 503 } });
    const ready = await app.call('GET', '/readyz');
    expect(ready).toMatchObject({ status: 503, body: { database: 'ok', temporal: 'unreachable' } });
  } finally {
    await app.stop();
  }
});

test('an unreachable Temporal answers a message 503 with Retry-After within the start budget, and the next one at once without storing it', async () => {
  const app = await appWith(process.env.TEST_DATABASE_URL!, `127.0.0.1:${await freePort()}`);
  try {
    const business = 'acme-temporal-down';
    const body = { message_type: 'text', client_phone: '+14155550100', text_message: 'Hi' };
    const started = Date.now();
    const first = await app.call('POST', `/ext/v2/${business}/messages`, body);
    const firstMs = Date.now() - started;
    expect(first).toMatchObject({ status: 503, retryAfter: '5', body: { status: 503 } });
    const second = await app.call('POST', `/ext/v2/${business}/messages`, body);
    expect(second).toMatchObject({ status: 503, body: { detail: 'A backing service is unavailable; try again shortly' } });
    expect(Number(second.retryAfter)).toBeGreaterThan(0);
    // The SDK's own retries took ~19.5 s; the budget is 2 s (loose bound: shared machines are noisy).
    expect(firstMs).toBeLessThan(10_000);
    const stored = await stack.prisma.message.findMany({ where: { business } });
    expect(stored.map((m) => m.status)).toEqual(['failed']);
  } finally {
    await app.stop();
  }
});
