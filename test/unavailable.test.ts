import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import jwt from 'jsonwebtoken';
import { createApp } from '../src/api/app';
import { listen } from '../src/api/server';
import { createPrisma } from '../src/db/prisma';
import { freePort } from '../src/infra/ports';

/* With the database or Temporal out of reach, callers get a 503 to retry, never a 500. */
const secret = randomBytes(32).toString('hex');
const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'user-1', expiresIn: '1h' });

async function appWith(databaseUrl: string, temporalAddress: string) {
  const prisma = createPrisma(databaseUrl, 2);
  const temporal = new Client({ connection: Connection.lazy({ address: temporalAddress, connectTimeout: 1000 }) });
  const http = await listen(createApp({ prisma, temporal, taskQueue: 'nowhere', auth: { secret }, assignTimeoutMs: 3000, log: () => undefined }), 0, '127.0.0.1');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${http.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type'), body: (await res.json()) as any };
  };
  return { call, stop: async () => { await http.stop(); await prisma.$disconnect(); await temporal.connection.close(); } };
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
