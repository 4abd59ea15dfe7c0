import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/* What the three CRM fakes share: reading a request's body, listening, and the replayable delivery their control routes answer. */

/** A request's whole body as text: the fakes read the JSON or SOAP their callers send. */
export const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

/** Listens on 127.0.0.1 (`port` 0: any free one); answers the base URL. */
export async function listenLocally(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A webhook a fake sent: its answer, and the request itself, so a caller can replay it byte for byte. */
export interface SentWebhook {
  status: number;
  body: string;
  contentType: string | null;
  request: { url: string; headers: Record<string, string>; body: string };
}

export async function sendWebhook(url: string, headers: Record<string, string>, body: string): Promise<SentWebhook> {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, body: await response.text(), contentType: response.headers.get('content-type'), request: { url, headers, body } };
}

/** Stops the server, dropping kept-alive connections. */
export const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
