import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP listener that counts every TCP connection made to it, answered by `handle` (204 by default). */
export interface CountingListener {
  port: number;
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  /** `METHOD path` of each request received. */
  requests: string[];
  close(): Promise<void>;
}

export async function startCountingListener(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_req, res) => res.writeHead(204).end()): Promise<CountingListener> {
  const listener = { connections: 0, requests: [] as string[] } as CountingListener;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      listener.requests.push(`${req.method} ${req.url}`);
      handle(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  server.on('connection', () => listener.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  listener.port = (server.address() as AddressInfo).port;
  listener.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return listener;
}
