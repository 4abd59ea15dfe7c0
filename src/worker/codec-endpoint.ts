import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { bearerOf, sameSecret, serviceCredentialCheck } from '../auth/service-credential';
import type { CodecCredentials } from '../config/index';
import { logEvent, logger, requestLineLevel } from '../logger';

/** The remote codec the Temporal UI and CLI call to show encrypted payloads to an operator who may read them. */
export interface CodecEndpoint {
  codec: PayloadCodec;
  /** Who may call it; every call carries one of these credentials. */
  credentials: CodecCredentials;
  /** Browser origins (the Temporal UI) allowed to call it. */
  origins: readonly string[];
  namespace: string;
  /** Where the line each decode leaves goes (who asked, how many payloads); the process's log by default. */
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** Who made a codec call, for the log line each decode leaves. */
interface CodecCaller {
  caller: string;
  credential: 'bearer-token' | 'path-token' | 'jwt';
}

/** Checks a call's credential: the bearer secret (in the Authorization header or as the endpoint's path), or a JWT made for the codec. */
function codecAuthenticator(credentials: CodecCredentials) {
  const check = serviceCredentialCheck(credentials);
  return (authorization: string | undefined, pathToken: string | undefined): CodecCaller | undefined => {
    if (pathToken !== undefined) return credentials.token && sameSecret(pathToken, credentials.token) ? { caller: 'codec token holder', credential: 'path-token' } : undefined;
    const bearer = bearerOf(authorization);
    const caller = bearer === undefined ? undefined : check(bearer);
    if (!caller) return undefined;
    return caller.credential === 'jwt' ? { caller: caller.subject, credential: 'jwt' } : { caller: 'codec token holder', credential: 'bearer-token' };
  };
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

/**
 * The process's log: a decode is one line per payload list the Temporal UI shows (several a page view), so
 * it is written at the request lines' level — quiet at a terminal unless LOG_LEVEL=debug, kept in JSON
 * lines (production's audit of who read what). A refusal is always worth a line.
 */
function codecLog(event: string, fields: Record<string, unknown>): void {
  if (event === 'codec.decode') logger[requestLineLevel()]({ event, ...fields });
  else logEvent(event, fields);
}

/**
 * Serves POST /codec/encode and /codec/decode (Temporal's remote codec protocol), and the same under
 * /codec/<token>/ for a UI that can only be given a URL; false when the path is another.
 */
export function codecHandler(endpoint: CodecEndpoint) {
  const authenticate = codecAuthenticator(endpoint.credentials);
  const log = endpoint.log ?? codecLog;
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const route = /^\/codec(?:\/([^/]+))?\/(encode|decode)$/.exec((req.url ?? '').split('?')[0]);
    if (!route) return false;
    const [, pathToken, operation] = route as unknown as [string, string | undefined, 'encode' | 'decode'];
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
      if (status === 401) headers['WWW-Authenticate'] = 'Bearer realm="codec"';
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      res.writeHead(status, headers).end(body === undefined ? undefined : JSON.stringify(body));
      return true;
    };
    if (origin && !endpoint.origins.includes(origin)) return reply(403, { error: `Origin ${origin} may not use this codec (CODEC_CORS_ORIGINS)` });
    // A browser's preflight carries no credential; the call that follows must.
    if (req.method === 'OPTIONS') return reply(204);
    if (req.method !== 'POST') return reply(405, { error: 'POST only' });
    const who = authenticate(req.headers.authorization, pathToken && decodeURIComponent(pathToken));
    if (!who) {
      log('codec.refused', { operation, origin, remote: req.socket.remoteAddress });
      return reply(401, { error: 'The codec needs a credential: Authorization: Bearer <CODEC_AUTH_TOKEN or a JWT for CODEC_JWT_AUDIENCE>' });
    }
    const namespace = req.headers['x-namespace'];
    if (namespace !== undefined && namespace !== endpoint.namespace) return reply(403, { error: `This codec serves namespace ${endpoint.namespace}` });
    let payloads: Payload[];
    try {
      const body = JSON.parse(await readBody(req)) as { payloads?: JsonPayload[] } | null;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new TypeError('the body must be an object');
      // Protobuf's JSON leaves out an empty list: the CLI sends {} when it has nothing to code.
      const list = body.payloads ?? [];
      if (!Array.isArray(list)) throw new TypeError('payloads must be an array');
      payloads = list.map(fromJson);
    } catch (error) {
      return reply(400, { error: `Expected {"payloads": [...]}: ${(error as Error).message}` });
    }
    if (operation === 'decode') log('codec.decode', { caller: who.caller, credential: who.credential, payloads: payloads.length, namespace: endpoint.namespace, origin, remote: req.socket.remoteAddress });
    try {
      const coded = await endpoint.codec[operation](payloads);
      return reply(200, { payloads: coded.map(toJson) });
    } catch (error) {
      return reply(400, { error: (error as Error).message });
    }
  };
}
