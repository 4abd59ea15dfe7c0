import { createServer } from 'node:net';

/** Returns `preferred` when it is free on 127.0.0.1, otherwise any free port. */
export async function freePort(preferred = 0): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : port));
      });
    });
  if (preferred) {
    try {
      return await tryListen(preferred);
    } catch {
      // taken: fall through to an ephemeral port
    }
  }
  return tryListen(0);
}
