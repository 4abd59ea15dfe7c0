import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A host that answers every request with `status` and a body that never ends, written as fast as the
 * reader takes it: how many bytes it managed to hand to the socket, and whether the reader closed it.
 */
export interface EndlessAnswer {
  url: string;
  port: number;
  requests: number;
  /** Bytes of body written (accepted by the socket) over every request. */
  bytesSent: number;
  /** Answers whose connection the reader closed. */
  closed: number;
  /** The next request's answer is closed by the reader: resolved then. */
  nextClose(): Promise<void>;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');

export async function startEndlessAnswer(options: { status?: number; headers?: Record<string, string>; match?: (req: IncomingMessage) => boolean; otherwise?: (req: IncomingMessage, res: ServerResponse) => void } = {}): Promise<EndlessAnswer> {
  const { status = 200, headers = { 'content-type': 'application/json' } } = options;
  let waiters: (() => void)[] = [];
  const host = { requests: 0, bytesSent: 0, closed: 0 } as EndlessAnswer;
  const server = createServer((req, res) => {
    if (options.match && !options.match(req)) return options.otherwise?.(req, res);
    req.resume();
    host.requests++;
    res.writeHead(status, headers);
    let open = true;
    res.on('close', () => {
      open = false;
      host.closed++;
      const done = waiters;
      waiters = [];
      for (const wake of done) wake();
    });
    const pump = () => {
      while (open) {
        host.bytesSent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host.port = (server.address() as AddressInfo).port;
  host.url = `http://127.0.0.1:${host.port}`;
  host.nextClose = () => new Promise<void>((resolve) => waiters.push(resolve));
  host.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return host;
}
