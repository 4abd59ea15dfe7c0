import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CarrierCallback } from '../../src/carriers/types';

/** Where a fake carrier's webhooks land in the carriers' own suites: each request as the callback routes would hand it to the carrier. */
export class CallbackReceiver {
  readonly received: CarrierCallback[] = [];
  private server!: Server;

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
      const messageId = /\/status\/([^/?]+)/.exec(req.url ?? '')?.[1];
      this.received.push({ url: `${this.base}${req.url}`, headers, rawBody: Buffer.concat(chunks), ...(messageId ? { messageId } : {}) });
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get last(): CarrierCallback {
    return this.received[this.received.length - 1]!;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
