import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  receivedAt: number;
  /** 1 for the first request carrying this Idempotency-Key (or Standard Webhooks' webhook-id), 2 for the next, … */
  attempt: number;
  /** The status answered; 0 when the connection was dropped. */
  status: number;
}

/** The status to answer with, or `drop` to close the connection without an answer. */
export type Answer = number | 'drop' | { status: number; body?: string; delayMs?: number; headers?: Record<string, string> };
export type Responder = (request: Omit<ReceivedRequest, 'status'>) => Answer;

export interface WebhookReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Decides each answer; 200 `{ "id": "rcv-<message id>" }` unless set. */
  respond: Responder;
  requestsFor(messageId: string): ReceivedRequest[];
  /** Requests answered 2xx: deliveries, as a receiver that honours Idempotency-Key counts them. */
  deliveriesFor(messageId: string): ReceivedRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every request and answers as the test says. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const defaultResponder: Responder = (request) => ({ status: 200, body: JSON.stringify({ id: `rcv-${request.body?.id}` }) });
  const receiver = { respond: defaultResponder } as WebhookReceiver;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const keyOf = (headers: IncomingHttpHeaders) => headers['idempotency-key'] ?? headers['webhook-id'];
      const key = keyOf(req.headers);
      const attempt = requests.filter((r) => keyOf(r.headers) === key).length + 1;
      const received = { method: req.method ?? '', headers: req.headers, rawBody, body, receivedAt: Date.now(), attempt };
      const answer = receiver.respond(received);
      if (answer === 'drop') {
        requests.push({ ...received, status: 0 });
        req.socket.destroy();
        return;
      }
      const { status, body: responseBody = '', delayMs = 0, headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
      requests.push({ ...received, status });
      setTimeout(() => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(responseBody);
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/messages`,
    requests,
    requestsFor: (messageId: string) => requests.filter((r) => r.body?.id === messageId),
    deliveriesFor: (messageId: string) => requests.filter((r) => r.body?.id === messageId && r.status >= 200 && r.status < 300),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A factory of receivers for a suite's tests, each closed once the suite is over. */
export function receiversClosedAfterAll(): () => Promise<WebhookReceiver> {
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });
  return async () => {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  };
}
