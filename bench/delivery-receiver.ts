import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver saw of one message id: every POST carrying it, when each came, and the distinct bodies. */
export interface ReceivedMessage {
  posts: number;
  firstAt: number;
  at: number[];
  /** SHA-256 of each distinct body: one when every POST for the id was the same hand-over. */
  bodies: Set<string>;
}

/**
 * The webhook provider's receiver for a benchmark: a real HTTP server on 127.0.0.1 that answers every
 * POST 200 `{ "id": "rcv-<id>" }` and counts the POSTs per message id (the Idempotency-Key header, else
 * the body's `id`), so a message handed over twice shows as 2, whatever the receiver would make of it;
 * the bodies tell a repeat of the same hand-over (same key, same body) from a second, different one.
 */
export async function startDeliveryReceiver() {
  const received = new Map<string, ReceivedMessage>();
  let unkeyed = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = createHash('sha256').update(raw).digest('hex');
      let id = req.headers['idempotency-key'];
      if (typeof id !== 'string') {
        try {
          id = (JSON.parse(raw) as { id?: string }).id;
        } catch {
          id = undefined;
        }
      }
      if (typeof id !== 'string') {
        unkeyed++;
        res.writeHead(400).end();
        return;
      }
      const seen = received.get(id);
      if (seen) {
        seen.posts++;
        seen.at.push(at);
        seen.bodies.add(body);
      } else received.set(id, { posts: 1, firstAt: at, at: [at], bodies: new Set([body]) });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `rcv-${id}` }));
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/messages`,
    received,
    unkeyed: () => unkeyed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
