import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { createPrisma } from '../../../src/db/prisma';
import { freePort } from '../../../src/net/free-port';
import { setStartBudget } from '../../../src/starters/availability';
import { startTestStack, type TestStack } from '../../support/stack';

/*
 * With the database or Temporal out of reach, callers get a 503 to retry, never a 500. Each test owns its
 * API, its Temporal client (a start budget and a known-down state are a client's) and its business: they
 * run side by side (`test.concurrent`, docs/design.md "Suite: concurrent tests inside a file").
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const BUDGET_MS = 500;

async function appWith(databaseUrl: string, temporalAddress: string) {
  const prisma = createPrisma(databaseUrl, 2);
  const temporalDown = temporalAddress !== process.env.TEST_TEMPORAL_ADDRESS;
  const temporal = new Client({ connection: Connection.lazy({ address: temporalAddress, connectTimeout: 1000 }) });
  // Against a server that does not answer, what is measured is that a budget bounds the wait, not the
  // production budget's 2 s (waited out each time). The suite's own server keeps the production budget:
  // on a loaded machine its first answer can take longer than 0.5 s, and readyz would call it down.
  if (temporalDown) setStartBudget(temporal, BUDGET_MS);
  else await temporal.connection.ensureConnected();
  const api = await stack.startApi({ prisma, temporal, taskQueue: 'nowhere', assignTimeoutMs: 1000 });
  const token = stack.token('user-1');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await api.api(method, `/${path}`, { token, body });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type'), body: res.body };
  };
  return { call, stop: async () => { await api.stop(); await prisma.$disconnect(); await temporal.connection.close(); } };
}

/** Runs `steps` against an API on that database and Temporal, and stops it after. */
async function withApp(databaseUrl: string, temporalAddress: string, steps: (app: Awaited<ReturnType<typeof appWith>>) => Promise<void>) {
  const app = await appWith(databaseUrl, temporalAddress);
  try {
    await steps(app);
  } finally {
    await app.stop();
  }
}

/** An address where nothing listens. */
const nowhere = async () => `127.0.0.1:${await freePort()}`;

/** readyz answers 503 and names which part is down. */
async function expectNotReady(app: Awaited<ReturnType<typeof appWith>>, parts: { database: string; temporal: string }) {
  expect(await app.call('GET', '/readyz')).toMatchObject({ status: 503, body: parts });
}

test.concurrent('an unreachable database answers 503 with Retry-After, and readyz says which part is down', async () => {
  await withApp(`postgresql://postgres:postgres@${await nowhere()}/none`, process.env.TEST_TEMPORAL_ADDRESS!, async (app) => {
    const created = await app.call('POST', '/ext/v2/acme/clients', { _id: 'c1' });
    expect(created).toMatchObject({ status: 503, retryAfter: '5', body: { status: 503, detail: 'A backing service is unavailable; try again shortly' } });
    expect(created.type).toContain('application/problem+json');
    await expectNotReady(app, { database: 'unreachable', temporal: 'ok' });
  });
});

test.concurrent('an unreachable Temporal answers 503 to an assignment request, which assigns nothing', async () => {
  await withApp(process.env.TEST_DATABASE_URL!, await nowhere(), async (app) => {
    // The client exists: its run, not its row, is what cannot be reached.
    expect([201, 409]).toContain((await app.call('POST', '/ext/v2/acme-unavailable/clients', { _id: 'c1' })).status);
    const assigned = await app.call('POST', '/ext/v2/acme-unavailable/clients/c1/assign-agents', { agents: [{ agent: 'a1' }] });
    expect(assigned).toMatchObject({ status: 503, retryAfter: '5', body: { status: 503 } });
    await expectNotReady(app, { database: 'ok', temporal: 'unreachable' });
  });
});

test.concurrent('an unreachable Temporal answers a message 503 with Retry-After within the start budget, and the next one at once without storing it', async () => {
  await withApp(process.env.TEST_DATABASE_URL!, await nowhere(), async (app) => {
    const business = 'acme-temporal-down';
    const body = { message_type: 'text', client_phone: '+14155550100', text_message: 'Hi' };
    const started = Date.now();
    const first = await app.call('POST', `/ext/v2/${business}/messages`, body);
    const firstMs = Date.now() - started;
    expect(first).toMatchObject({ status: 503, retryAfter: '5', body: { status: 503 } });
    const second = await app.call('POST', `/ext/v2/${business}/messages`, body);
    expect(second).toMatchObject({ status: 503, body: { detail: 'A backing service is unavailable; try again shortly' } });
    expect(Number(second.retryAfter)).toBeGreaterThan(0);
    // The SDK's own retries took ~19.5 s; the budget is 0.5 s here (loose bound: shared machines are noisy).
    expect(firstMs).toBeLessThan(10_000);
    const stored = await stack.prisma.message.findMany({ where: { business } });
    expect(stored.map((m) => m.status)).toEqual(['failed']);
  });
});

/** A connection to the suite's Temporal on which the next `count` workflow starts reach the server only after `delayMs`: a busy moment. */
async function connectionWithSlowStarts(delayMs: number, count: number) {
  let slow = count;
  const delayStarts: Interceptor = (options, nextCall) => {
    const held = options.method_definition.path.endsWith('/StartWorkflowExecution') && slow-- > 0;
    return new InterceptingCall(nextCall(options), {
      sendMessage(message, next) {
        if (!held) return next(message);
        setTimeout(() => next(message), delayMs);
      },
    });
  };
  return Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS!, interceptors: [delayStarts] });
}

test.concurrent('a start that outlasts its budget on a Temporal that still answers refuses that message alone, not the next ones', async () => {
  const connection = await connectionWithSlowStarts(3000, 1);
  const temporal = new Client({ connection });
  const api = await stack.startApi({ temporal });
  try {
    const token = stack.token('user-slow-start');
    const body = { message_type: 'text', client_phone: '+14155550100', text_message: 'Hi', delay: '1h' };
    const first = await api.api('POST', '/messages', { token, body });
    expect(first).toMatchObject({ status: 503, body: { detail: 'The message could not be scheduled and will not be sent: try again' } });
    expect(first.headers.get('retry-after')).not.toBeNull();
    const next = await api.api('POST', '/messages', { token, body });
    expect(next.status).toBe(202);
  } finally {
    await api.stop();
    await connection.close();
  }
});
