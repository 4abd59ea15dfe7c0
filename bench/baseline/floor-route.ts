import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { Prisma } from '../../src/db/prisma';
import { RAW_TASK_QUEUE } from './worker';

/**
 * The least a durable accept can do, for the accept scenario's second baseline: a bare node:http route
 * that reads a JSON body, stores it with one INSERT and starts a workflow with the same start delay,
 * then answers 202. No auth, no validation, no event, no logging: what is left between it and the
 * project is the project's own work.
 */
export async function startFloorRoute(prisma: Prisma, temporal: Client) {
  await prisma.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS bench_floor (id uuid PRIMARY KEY, body jsonb NOT NULL)');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        const id = randomUUID();
        const body = Buffer.concat(chunks).toString();
        await prisma.$executeRaw`INSERT INTO bench_floor (id, body) VALUES (${id}::uuid, ${body}::jsonb)`;
        await temporal.workflow.start('rawDelayedSend', { taskQueue: RAW_TASK_QUEUE, workflowId: `floor-${id}`, args: [id], startDelay: '1h' });
        res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ _id: id }));
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    async post(body: unknown) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await res.arrayBuffer();
      if (res.status !== 202) throw new Error(`floor route answered ${res.status}`);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
