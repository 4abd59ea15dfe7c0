import type { Server } from 'node:http';
import type { Express } from 'express';

/** Listens on `port` and returns a stop() that drains open connections before it resolves. */
export function listen(app: Express, port: number, host?: string): Promise<{ server: Server; port: number; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host ?? '0.0.0.0', () => {
      const address = server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      resolve({
        server,
        port: actualPort,
        stop: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            setTimeout(() => server.closeAllConnections(), 5_000).unref();
          }),
      });
    });
    server.once('error', reject);
  });
}
