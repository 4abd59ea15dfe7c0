import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TwilioApi, type TwilioApiOptions } from '../../src/stack/simulator/twilio-api';

/*
 * Twilio as the tests meet it: the Twilio-compatible API the simulator runs, with an account made up per
 * test. The same port serves the Messages API (TWILIO_API_URL), the Content API (TWILIO_CONTENT_API_URL,
 * with SIMULATOR_TEMPLATES) and inbound messages' media.
 */

export { MAGIC_TO_ERRORS, MAGIC_UNDELIVERED, twilioSignature } from '../../src/stack/simulator/twilio-api';
export { SIMULATOR_TEMPLATES } from '../../src/stack/simulator/content-api';

export interface FakeTwilio {
  api: TwilioApi;
  /** The REST base and the Content API's. */
  url: string;
  accountSid: string;
  authToken: string;
  from: string;
  messagingServiceSid: string;
  apiKey: { sid: string; secret: string };
  stop(): Promise<void>;
}

export async function startFakeTwilio(options: Partial<TwilioApiOptions> = {}): Promise<FakeTwilio> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const apiKey = { sid: `SK${randomBytes(16).toString('hex')}`, secret: randomBytes(16).toString('base64url') };
  const from = '+15005550006';
  const messagingServiceSid = `MG${randomBytes(16).toString('hex')}`;
  const api = new TwilioApi({ accountSid, authToken, apiKeys: [apiKey], from: [from], messagingServiceSids: [messagingServiceSid], ...options });
  const url = await api.start();
  return { api, url, accountSid, authToken, from, messagingServiceSid, apiKey, stop: () => api.stop() };
}

export interface CapturedCallback {
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

/** A plain HTTP server standing in for our callback routes: records what Twilio posted, answers 200. */
export async function startCallbackCatcher(): Promise<{ base: string; received: CapturedCallback[]; stop(): Promise<void> }> {
  const received: CapturedCallback[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ url: base + (req.url ?? ''), headers: req.headers, rawBody: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'text/xml' }).end('<Response/>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, received, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
