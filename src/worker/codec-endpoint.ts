import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** The remote codec the Temporal UI and CLI call to show encrypted payloads to an operator who may read them. */
export interface CodecEndpoint {
  codec: PayloadCodec;
  /** Browser origins (the Temporal UI) allowed to call it. */
  origins: readonly string[];
  namespace: string;
}

const MAX_BODY_BYTES = 4 << 20;

type JsonPayload = { metadata?: Record<string, string>; data?: string };

const fromJson = (payload: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
  data: Buffer.from(payload.data ?? '', 'base64'),
});

const toJson = (payload: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? new Uint8Array()).toString('base64')])),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RangeError('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Serves POST /codec/encode and /codec/decode (Temporal's remote codec protocol); false when the path is another. */
export async function serveCodec(req: IncomingMessage, res: ServerResponse, endpoint: CodecEndpoint): Promise<boolean> {
  const path = (req.url ?? '').split('?')[0];
  const operation = path === '/codec/encode' ? 'encode' : path === '/codec/decode' ? 'decode' : undefined;
  if (!operation) return false;
  const origin = req.headers.origin;
  const reply = (status: number, body?: unknown) => {
    const headers: Record<string, string> = { 'Cache-Control': 'no-store', Vary: 'Origin' };
    if (origin && endpoint.origins.includes(origin)) {
      Object.assign(headers, {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Credentials': 'true',
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': 'Content-Type, X-Namespace, Authorization',
      });
    }
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    res.writeHead(status, headers).end(body === undefined ? undefined : JSON.stringify(body));
  };
  if (origin && !endpoint.origins.includes(origin)) return reply(403, { error: `Origin ${origin} may not use this codec (CODEC_CORS_ORIGINS)` }), true;
  if (req.method === 'OPTIONS') return reply(204), true;
  if (req.method !== 'POST') return reply(405, { error: 'POST only' }), true;
  const namespace = req.headers['x-namespace'];
  if (namespace !== undefined && namespace !== endpoint.namespace) return reply(403, { error: `This codec serves namespace ${endpoint.namespace}` }), true;
  let payloads: Payload[];
  try {
    const body = JSON.parse(await readBody(req)) as { payloads?: JsonPayload[] };
    if (!Array.isArray(body.payloads)) throw new TypeError('payloads must be an array');
    payloads = body.payloads.map(fromJson);
  } catch (error) {
    return reply(400, { error: `Expected {"payloads": [...]}: ${(error as Error).message}` }), true;
  }
  try {
    const coded = await endpoint.codec[operation](payloads);
    reply(200, { payloads: coded.map(toJson) });
  } catch (error) {
    reply(400, { error: (error as Error).message });
  }
  return true;
}
