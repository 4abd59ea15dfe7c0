import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CarrierFailure, FakeCarrierServer, messageOf, type PostedWebhook } from './fake-carrier';

/*
 * A local Telnyx Messaging API (v2) as Telnyx documents it: `POST /v2/messages` (JSON, `Authorization:
 * Bearer <key>`, E.164 `to`, `from` or `messaging_profile_id`, `text`, optional `webhook_url` and
 * `use_profile_webhooks`), `GET /v2/messages/{id}`, and the detail-record search `GET /v2/detail_records`
 * (messaging records by `cld`, `direction` and `created_at[gte]`). Answers in Telnyx's shapes (`{ data }`,
 * errors `{ errors: [{ code, title, detail }] }`), records every request, and posts webhooks signed as
 * Telnyx signs them: Ed25519 over `<telnyx-timestamp>|<raw body>`, with a keypair made here.
 */

/** Numbers the fake refuses, as Twilio's test numbers do. */
export const TELNYX_MAGIC = {
  /** 400, 40310: invalid 'to' address. */
  invalidTo: '+15005550001',
  /** Accepted; its `message.finalized` says delivery_failed with 40001 (not routable). */
  notRoutable: '+15005550002',
  /** 409, 40300: the recipient texted STOP to this sender (a block rule from the start). */
  stopped: '+15005550004',
  /** 500, 10007: unexpected error, every time. */
  broken: '+15005550005',
} as const;

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface FakeMessage {
  id: string;
  from: string;
  to: string;
  text: string;
  messaging_profile_id: string;
  webhook_url: string | null;
  received_at: string;
  status: string;
  /** Set once a final receipt was posted: a detail record then names the webhook it went to. */
  finalized: boolean;
  cost: { amount: string; currency: string } | null;
}

const E164 = /^\+[1-9]\d{1,14}$/;
/** The keywords Telnyx acts on by default (developers.telnyx.com, Advanced Opt-In/Out: default behavior). */
const OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'STOP ALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'];
const OPT_IN_KEYWORDS = ['START', 'UNSTOP'];

function error(code: string, title: string, detail: string, pointer?: string) {
  return { errors: [{ code, title, detail, ...(pointer ? { source: { pointer } } : {}) }] };
}

export class FakeTelnyx extends FakeCarrierServer {
  readonly apiKey = `KEY_${randomUUID().replace(/-/g, '')}`;
  readonly profileId = randomUUID();
  readonly requests: FakeRequest[] = [];
  readonly messages = new Map<string, FakeMessage>();
  /** The portal's form of the public key: base64 of the raw 32 bytes. */
  readonly publicKey: string;
  readonly publicKeyPem: string;
  private readonly privateKey: KeyObject;
  private readonly failures: CarrierFailure[] = [];
  /**
   * Telnyx's default opt-out handling: a STOP (or synonym) texted to the profile creates a block rule for
   * that number on the whole profile, and START or UNSTOP removes it; a send to a blocked number is 40300.
   */
  readonly blocked = new Set<string>([TELNYX_MAGIC.stopped]);
  /** Sender numbers of the profile, for sends by `messaging_profile_id`. */
  readonly profileNumber = '+15550001111';

  constructor() {
    super();
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    this.privateKey = privateKey;
    this.publicKey = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
    this.publicKeyPem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  }

  /** Other Telnyx accounts served by this fake (a business's own): their API keys, and the keys their webhooks are signed with. */
  private readonly otherKeys = new Set<string>();

  /** Another Telnyx account: its API key, its portal public key, and the private key Telnyx signs its webhooks with. */
  addAccount(): { apiKey: string; publicKey: string; privateKey: KeyObject } {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const apiKey = `KEY_${randomUUID().replace(/-/g, '')}`;
    this.otherKeys.add(apiKey);
    return { apiKey, publicKey: Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64'), privateKey };
  }

  /** The API base the SDK is given (TELNYX_API_URL). */
  get url(): string {
    return `${this.origin}/v2`;
  }

  private losingAnswers = 0;

  /** The next send is accepted and kept, but its answer is lost: the connection drops before it (a crash's view of a send). */
  loseNextAnswer(): void {
    this.losingAnswers += 1;
  }

  /** The next `count` sends answer this error (e.g. 429 with Retry-After) instead of being accepted. */
  failNext(failure: CarrierFailure, count = 1): void {
    for (let i = 0; i < count; i += 1) this.failures.push(failure);
  }

  /** The sends (`POST /v2/messages`) received, in order. */
  get sends(): FakeRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v2/messages');
  }

  /** Telnyx's signature headers for a body, at `timestamp` (unix seconds, default now), with `key` (default the fake's). */
  signatureHeaders(body: string, timestamp = Math.floor(Date.now() / 1000), key: KeyObject = this.privateKey): Record<string, string> {
    return {
      'telnyx-timestamp': String(timestamp),
      'telnyx-signature-ed25519': sign(null, Buffer.from(`${timestamp}|${body}`), key).toString('base64'),
    };
  }

  /** A webhook body as Telnyx posts it. */
  eventBody(eventType: string, payload: Record<string, unknown>, deliveredTo: string): string {
    return JSON.stringify({
      data: { event_type: eventType, id: randomUUID(), occurred_at: new Date().toISOString(), payload, record_type: 'event' },
      meta: { attempt: 1, delivered_to: deliveredTo },
    });
  }

  /** POSTs a body to `url` as Telnyx does; `headers` replace the signature (e.g. none, a stale one). */
  async post(url: string, body: string, headers: Record<string, string> = this.signatureHeaders(body)): Promise<PostedWebhook> {
    return this.callbacks.post(url, body, { 'content-type': 'application/json', 'user-agent': 'telnyx-webhooks', ...headers });
  }

  /** The outbound message's payload as its webhooks carry it, with the recipient's status and the errors. */
  outboundPayload(message: FakeMessage, status: string, errors: { code: string; title: string }[] = []): Record<string, unknown> {
    return {
      record_type: 'message',
      direction: 'outbound',
      id: message.id,
      type: 'SMS',
      messaging_profile_id: message.messaging_profile_id,
      from: { phone_number: message.from, carrier: 'Telnyx', line_type: 'Wireless' },
      to: [{ phone_number: message.to, status, carrier: 'T-Mobile USA', line_type: 'Wireless' }],
      cc: [],
      text: message.text,
      media: [],
      webhook_url: message.webhook_url,
      webhook_failover_url: null,
      encoding: 'GSM-7',
      parts: 1,
      tags: [],
      cost: message.cost,
      received_at: message.received_at,
      sent_at: new Date().toISOString(),
      completed_at: ['delivered', 'delivery_failed', 'sending_failed', 'delivery_unconfirmed', 'expired'].includes(status) ? new Date().toISOString() : null,
      valid_until: null,
      errors: errors.map((e) => ({ ...e, detail: `The message to ${message.to} failed.` })),
    };
  }

  /** Posts `message.sent` for a message to its `webhook_url`. */
  async postSent(id: string): Promise<PostedWebhook> {
    const message = this.message(id);
    const body = this.eventBody('message.sent', this.outboundPayload(message, 'sent'), message.webhook_url!);
    return this.post(message.webhook_url!, body);
  }

  /**
   * Posts `message.finalized` for a message to its `webhook_url`: delivered by default; `delivery_failed`
   * (with 40001 for the not-routable magic number) or any other final status on request.
   */
  async postFinalized(id: string, status?: string, errors?: { code: string; title: string }[]): Promise<PostedWebhook> {
    const message = this.message(id);
    const notRoutable = message.to === TELNYX_MAGIC.notRoutable;
    const final = status ?? (notRoutable ? 'delivery_failed' : 'delivered');
    const errs = errors ?? (notRoutable ? [{ code: '40001', title: 'Not routable' }] : []);
    message.status = final;
    message.cost = { amount: '0.0040', currency: 'USD' };
    message.finalized = true;
    const body = this.eventBody('message.finalized', this.outboundPayload(message, final, errs), message.webhook_url!);
    return this.post(message.webhook_url!, body);
  }

  /** Posts `message.received` (a client's text) to `url`, the messaging profile's inbound webhook, after applying Telnyx's own keyword block rules. */
  async postInbound(url: string, text: string, from: string, to: string): Promise<PostedWebhook & { id: string; sentBody: string }> {
    const keyword = text.trim().toUpperCase();
    if (OPT_OUT_KEYWORDS.includes(keyword)) this.blocked.add(from);
    if (OPT_IN_KEYWORDS.includes(keyword)) this.blocked.delete(from);
    const id = randomUUID();
    const payload = {
      record_type: 'message',
      direction: 'inbound',
      id,
      type: 'SMS',
      messaging_profile_id: this.profileId,
      from: { phone_number: from, carrier: 'T-Mobile USA', line_type: 'Wireless' },
      to: [{ phone_number: to, status: 'webhook_delivered', carrier: 'Telnyx', line_type: 'Wireless' }],
      cc: [],
      text,
      media: [],
      encoding: 'GSM-7',
      parts: 1,
      tags: [],
      cost: null,
      received_at: new Date().toISOString(),
      sent_at: null,
      completed_at: null,
      valid_until: null,
      webhook_url: url,
      webhook_failover_url: null,
      errors: [],
    };
    const sentBody = this.eventBody('message.received', payload, url);
    return { id, sentBody, ...(await this.post(url, sentBody)) };
  }

  message(id: string): FakeMessage {
    return messageOf(this.messages, id);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    this.requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body });

    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== this.apiKey && !(bearer && this.otherKeys.has(bearer))) {
      return this.reply(res, 401, error('10009', 'Authentication failed', 'The required authentication headers were either invalid or not included in the request.'));
    }
    if (req.method === 'POST' && url.pathname === '/v2/messages') return this.send(req, res, raw, body);
    const one = /^\/v2\/messages\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const message = this.messages.get(decodeURIComponent(one[1]));
      if (!message) return this.reply(res, 404, error('10005', 'Resource not found', 'The requested resource or URL could not be found.'));
      return this.reply(res, 200, { data: this.outboundPayload(message, message.status) });
    }
    if (req.method === 'GET' && url.pathname === '/v2/detail_records') return this.detailRecords(res, url.searchParams);
    return this.reply(res, 404, error('10005', 'Resource not found', 'The requested resource or URL could not be found.'));
  }

  private send(req: IncomingMessage, res: ServerResponse, raw: string, body: any): void {
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      return this.reply(res, 415, error('10014', 'Unsupported Media Type', 'The request failed because the server does not support the media type.'));
    }
    if (!body || typeof body !== 'object' || typeof raw !== 'string') return this.reply(res, 400, error('10015', 'Bad Request', 'The request failed because it was not well-formed.'));
    const { to, from, messaging_profile_id: profile, text, webhook_url: webhookUrl, use_profile_webhooks: useProfile } = body;
    if (typeof to !== 'string') return this.reply(res, 400, error('10004', 'Missing required parameter', 'The "to" parameter is required.', '/to'));
    if (!E164.test(to)) return this.reply(res, 400, error('10016', 'Phone number must be in +E.164 format', `The "to" parameter ${to} must be in +E.164 format.`, '/to'));
    if ((from === undefined) === (profile === undefined)) {
      return this.reply(res, 400, error('10015', 'Bad Request', 'Send with either "from" or "messaging_profile_id".', from === undefined ? '/from' : '/messaging_profile_id'));
    }
    if (from !== undefined && (typeof from !== 'string' || !E164.test(from))) return this.reply(res, 400, error('10016', 'Phone number must be in +E.164 format', 'The "from" parameter must be in +E.164 format.', '/from'));
    if (profile !== undefined && profile !== this.profileId) return this.reply(res, 400, error('10006', 'Invalid ID', 'The messaging profile is not one of yours.', '/messaging_profile_id'));
    if (typeof text !== 'string' || text.length === 0) return this.reply(res, 400, error('10004', 'Missing required parameter', 'The "text" parameter is required for SMS.', '/text'));
    if (webhookUrl !== undefined && (typeof webhookUrl !== 'string' || !/^https?:\/\/[^\s]+$/.test(webhookUrl) || webhookUrl.length > 2000)) {
      return this.reply(res, 400, error('10003', 'Invalid URL', 'The URL provided was invalid, malformed, or too long.', '/webhook_url'));
    }
    if (useProfile !== undefined && typeof useProfile !== 'boolean') return this.reply(res, 400, error('10015', 'Bad Request', '"use_profile_webhooks" must be a boolean.', '/use_profile_webhooks'));

    const failure = this.failures.shift();
    if (failure) return this.reply(res, failure.status, error(failure.code, failure.title, `The message to ${to} was not accepted.`), failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
    if (to === TELNYX_MAGIC.invalidTo) return this.reply(res, 400, error('40310', "Invalid 'to' address", `The 'to' address ${to} is invalid.`, '/to'));
    if (this.blocked.has(to)) return this.reply(res, 409, error('40300', 'Blocked due to STOP message', `Messages cannot be sent from ${from ?? this.profileNumber} to ${to} due to an existing block rule.`));
    if (to === TELNYX_MAGIC.broken) return this.reply(res, 500, error('10007', 'Unexpected error', 'An unexpected error occured.'));

    const message: FakeMessage = {
      id: randomUUID(),
      from: from ?? this.profileNumber,
      to,
      text,
      messaging_profile_id: profile ?? this.profileId,
      webhook_url: webhookUrl ?? null,
      received_at: new Date().toISOString(),
      status: 'queued',
      finalized: false,
      cost: null,
    };
    this.messages.set(message.id, message);
    if (this.losingAnswers > 0) {
      this.losingAnswers -= 1;
      res.socket?.destroy();
      return;
    }
    return this.reply(res, 200, { data: this.outboundPayload(message, 'queued') });
  }

  /** Message detail records: `filter[record_type]=messaging` required; `cld`, `direction`, `created_at[gte]`; newest first. */
  private detailRecords(res: ServerResponse, query: URLSearchParams): void {
    if (query.get('filter[record_type]') !== 'messaging') return this.reply(res, 400, error('10004', 'Missing required parameter', 'filter[record_type] must be specified.'));
    const cld = query.get('filter[cld]');
    const direction = query.get('filter[direction]');
    const since = query.get('filter[created_at][gte]');
    const records = [...this.messages.values()]
      .filter((m) => (cld === null || m.to === cld) && (direction === null || direction === 'outbound') && (since === null || m.received_at >= new Date(since).toISOString()))
      .sort((a, b) => (query.get('sort') === '-created_at' ? b.received_at.localeCompare(a.received_at) : a.received_at.localeCompare(b.received_at)))
      .map((m) => ({
        record_type: 'message_detail_record',
        uuid: m.id,
        cld: m.to,
        cli: m.from,
        direction: 'outbound',
        message_type: 'SMS',
        parts: 1,
        profile_id: m.messaging_profile_id,
        created_at: m.received_at,
        updated_at: m.received_at,
        status: m.status === 'delivered' ? 'delivered' : m.finalized ? 'failed' : undefined,
        cost: m.cost?.amount,
        currency: m.cost?.currency,
        // Telnyx names the webhook only once it has posted the final status to it.
        ...(m.finalized ? { delivery_status_webhook_url: m.webhook_url, delivery_status: 'success: webhook succeeded' } : {}),
      }));
    const size = Number(query.get('page[size]') ?? 20);
    const number = Number(query.get('page[number]') ?? 1);
    const page = records.slice((number - 1) * size, number * size);
    this.reply(res, 200, { data: page, meta: { page_number: number, page_size: size, total_pages: Math.max(1, Math.ceil(records.length / size)), total_results: records.length } });
  }
}
