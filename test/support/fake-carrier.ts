import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/* What the fake carriers share: their HTTP server, an injected failure, and the callbacks they post back. */

/** The next answer(s) of a fake carrier's send endpoint, instead of accepting. */
export interface CarrierFailure {
  status: number;
  code: string;
  title: string;
  retryAfter?: string;
}

export interface PostedWebhook {
  status: number;
  body: string;
}

/**
 * Where a fake carrier's callbacks go. The carrier is given the public URL (PUBLIC_BASE_URL, which the
 * signatures cover); `route` forwards that origin to the test API's real one, as a proxy would.
 */
export class CallbackRoutes {
  private readonly routes = new Map<string, string>();

  route(publicOrigin: string, actualOrigin: string): void {
    this.routes.set(new URL(publicOrigin).origin, new URL(actualOrigin).origin);
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<PostedWebhook> {
    const target = new URL(url);
    const routed = this.routes.get(target.origin);
    const response = await fetch(routed ? `${routed}${target.pathname}${target.search}` : url, { method: 'POST', headers, body });
    return { status: response.status, body: await response.text() };
  }
}

/** A fake carrier's API on a free loopback port; the subclass answers its requests as that carrier does. */
export abstract class FakeCarrierServer {
  private server?: Server;
  protected readonly callbacks = new CallbackRoutes();

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** `http://127.0.0.1:<port>` once started. */
  protected get origin(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** The content type of the carrier's error answers (4xx, 5xx). */
  protected readonly errorContentType: string = 'application/json';

  /** A JSON answer, as the carrier gives it. */
  protected reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': status >= 400 ? this.errorContentType : 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  /** Callbacks to `publicOrigin` (what the carrier was given) go to `actualOrigin` (the test API). */
  route(publicOrigin: string, actualOrigin: string): void {
    this.callbacks.route(publicOrigin, actualOrigin);
  }
}

/** The fake's message `id`; fails the test when the fake has none. */
export function messageOf<M>(messages: Map<string, M>, id: string): M {
  const message = messages.get(id);
  if (!message) throw new Error(`the fake has no message ${id}`);
  return message;
}
