import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CarrierFailure, FakeCarrierServer, messageOf, type PostedWebhook } from './fake-carrier';
import { type ClientFile, FakeMediaStore, sha256Of } from './fake-media';
import { detailRecords, type FakeMessage, inboundPayload, outboundPayload, whatsappMessageOf } from './fake-telnyx-payloads';
import { FakeTelnyxRegistrations } from './fake-telnyx-10dlc';
import { E164, error, messageProblem, OPT_IN_KEYWORDS, OPT_OUT_KEYWORDS, type TelnyxProblem, whatsappProblem } from './fake-telnyx-requests';
import { rcsInboundPayload, rcsMessageOf, rcsProblem } from './fake-telnyx-rcs';

export type { FakeMessage } from './fake-telnyx-payloads';

/*
 * A local Telnyx Messaging API (v2) as Telnyx documents it: `POST /v2/messages` (JSON, `Authorization:
 * Bearer <key>`, E.164 `to`, `from` or `messaging_profile_id`, `text`, an MMS's `media_urls`, optional
 * `webhook_url` and `use_profile_webhooks`), `POST /v2/messages/whatsapp` (./fake-telnyx-requests.ts),
 * `GET /v2/messages/{id}`, and the detail-record search `GET /v2/detail_records` (messaging records by
 * `cld`, `direction` and `created_at[gte]`), the 10DLC and toll-free verification reads (./fake-telnyx-10dlc.ts). Answers in Telnyx's shapes (`{ data }`, errors `{ errors:
 * [{ code, title, detail }] }`), records every request, and posts webhooks (receipts with WhatsApp's
 * `message.read`; clients' SMS, MMS and WhatsApp messages) signed as Telnyx signs them: Ed25519 over
 * `<telnyx-timestamp>|<raw body>`, with a keypair made here. Clients' files are served at `GET /media/<id>`
 * on the fake's origin, by the link alone, as Telnyx's short-lived media links are.
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
  /** WhatsApp: the client last wrote more than 24 hours ago; a free-form message is accepted, then finalized delivery_failed with Meta's 131047 (a template goes). */
  outsideWindow: '+15005550008',
} as const;

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: any;
}

export class FakeTelnyx extends FakeCarrierServer {
  readonly apiKey = `KEY_${randomUUID().replace(/-/g, '')}`;
  readonly profileId = randomUUID();
  readonly requests: FakeRequest[] = [];
  readonly messages = new Map<string, FakeMessage>();
  /** Clients' files of inbound MMS and WhatsApp messages. */
  readonly media = new FakeMediaStore();
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
  /** The numbers' 10DLC campaigns and toll-free verifications (./fake-telnyx-10dlc.ts): none until set. */
  readonly registrations = new FakeTelnyxRegistrations();
  /** Sender numbers of the profile, for sends by `messaging_profile_id`. */
  readonly profileNumber = '+15550001111';
  /** The account's RCS agents (`agent_id`). */
  readonly rcsAgents = new Set<string>(['fake_rcs_agent']);
  /** Handsets that take no RCS: an RCS message to them goes as its fallback. */
  readonly rcsIncapable = new Set<string>();

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

  /** The sends (`POST /v2/messages` and `POST /v2/messages/whatsapp`) received, in order. */
  get sends(): FakeRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && (r.path === '/v2/messages' || r.path === '/v2/messages/whatsapp' || r.path === '/v2/messages/rcs'));
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
    return outboundPayload(message, status, errors);
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
    const outside = message.to === TELNYX_MAGIC.outsideWindow && message.type === 'WHATSAPP' && message.whatsapp?.type !== 'template';
    const final = status ?? (notRoutable || outside ? 'delivery_failed' : 'delivered');
    const errs = errors ?? (notRoutable ? [{ code: '40001', title: 'Not routable' }] : outside ? [{ code: '131047', title: 'Re-engagement message' }] : []);
    message.status = final;
    message.cost = { amount: '0.0040', currency: 'USD' };
    message.finalized = true;
    const body = this.eventBody('message.finalized', this.outboundPayload(message, final, errs), message.webhook_url!);
    return this.post(message.webhook_url!, body);
  }

  /** Posts `message.read` (WhatsApp's read receipt) for a message to its `webhook_url`. */
  async postRead(id: string): Promise<PostedWebhook> {
    const message = this.message(id);
    if (message.type !== 'WHATSAPP' && message.type !== 'RCS') throw new Error('Telnyx reports read for WhatsApp and RCS messages only');
    message.status = 'read';
    return this.post(message.webhook_url!, this.eventBody('message.read', this.outboundPayload(message, 'read'), message.webhook_url!));
  }

  /** Posts `message.received` (a client's text) to `url`, the messaging profile's inbound webhook, after applying Telnyx's own keyword block rules. */
  async postInbound(url: string, text: string, from: string, to: string): Promise<PostedWebhook & { id: string; sentBody: string }> {
    const keyword = text.trim().toUpperCase();
    if (OPT_OUT_KEYWORDS.includes(keyword)) this.blocked.add(from);
    if (OPT_IN_KEYWORDS.includes(keyword)) this.blocked.delete(from);
    return this.postReceived(url, inboundPayload('SMS', this.profileId, url, from, to, text));
  }

  /** Posts a client's MMS (text and files) or WhatsApp message (a text, or one file with its caption) to `url`; the files are kept and served by the fake. */
  async postInboundOn(type: 'MMS' | 'WHATSAPP', url: string, from: string, to: string, content: { text?: string; files?: ClientFile[] }): Promise<PostedWebhook & { id: string; sentBody: string; mediaUrls: string[] }> {
    const stored = (content.files ?? []).map((file) => {
      const kept = this.media.add(file);
      return { url: `${this.origin}/media/${kept.id}`, contentType: kept.contentType, size: kept.bytes.length, sha256: sha256Of(kept.bytes), kind: file.kind ?? 'image' };
    });
    const text = type === 'WHATSAPP' && content.files?.[0] ? (content.files[0].caption ?? '') : (content.text ?? '');
    return { mediaUrls: stored.map((f) => f.url), ...(await this.postReceived(url, inboundPayload(type, this.profileId, url, from, to, text, stored))) };
  }

  /** Posts a client's RCS message to `url` (to our agent): typed text, or a tapped suggestion. */
  async postInboundRcs(url: string, from: string, agentId: string, content: { text: string } | { tap: { text: string; postback_data: string } }): Promise<PostedWebhook & { id: string; sentBody: string }> {
    if ('text' in content) {
      const keyword = content.text.trim().toUpperCase();
      if (OPT_OUT_KEYWORDS.includes(keyword)) this.blocked.add(from);
    }
    return this.postReceived(url, rcsInboundPayload(this.profileId, url, from, agentId, content));
  }

  private async postReceived(url: string, payload: Record<string, unknown> & { id: string }): Promise<PostedWebhook & { id: string; sentBody: string }> {
    const sentBody = this.eventBody('message.received', payload, url);
    return { id: payload.id, sentBody, ...(await this.post(url, sentBody)) };
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
    // A client's file: its short-lived link serves it by itself.
    const file = /^\/media\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && file) {
      const kept = this.media.files.get(decodeURIComponent(file[1]!));
      return kept ? this.media.serve(res, kept) : this.reply(res, 404, error('10005', 'Resource not found', 'The requested resource or URL could not be found.'));
    }

    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== this.apiKey && !(bearer && this.otherKeys.has(bearer))) {
      return this.reply(res, 401, error('10009', 'Authentication failed', 'The required authentication headers were either invalid or not included in the request.'));
    }
    const sending = req.method === 'POST' && (url.pathname === '/v2/messages' || url.pathname === '/v2/messages/whatsapp' || url.pathname === '/v2/messages/rcs');
    if (sending && !/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      return this.reply(res, 415, error('10014', 'Unsupported Media Type', 'The request failed because the server does not support the media type.'));
    }
    if (sending && url.pathname === '/v2/messages') return this.send(res, raw, body);
    if (sending && url.pathname === '/v2/messages/rcs') return this.rcs(res, body);
    if (sending) return this.whatsapp(res, body);
    const one = /^\/v2\/messages\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const message = this.messages.get(decodeURIComponent(one[1]));
      if (!message) return this.reply(res, 404, error('10005', 'Resource not found', 'The requested resource or URL could not be found.'));
      return this.reply(res, 200, { data: this.outboundPayload(message, message.status) });
    }
    if (req.method === 'GET' && url.pathname === '/v2/detail_records') {
      const records = detailRecords(this.messages.values(), url.searchParams);
      return this.reply(res, records.status, records.body);
    }
    const registered = this.registrations.answer(req.method ?? '', url.pathname, url.searchParams);
    if (registered) return this.reply(res, registered.status, registered.body);
    return this.reply(res, 404, error('10005', 'Resource not found', 'The requested resource or URL could not be found.'));
  }

  private send(res: ServerResponse, raw: string, body: any): void {
    if (!body || typeof body !== 'object' || typeof raw !== 'string') return this.reply(res, 400, error('10015', 'Bad Request', 'The request failed because it was not well-formed.'));
    const { to, from, messaging_profile_id: profile, text, media_urls: media, webhook_url: webhookUrl, use_profile_webhooks: useProfile } = body;
    if (typeof to !== 'string') return this.reply(res, 400, error('10004', 'Missing required parameter', 'The "to" parameter is required.', '/to'));
    if (!E164.test(to)) return this.reply(res, 400, error('10016', 'Phone number must be in +E.164 format', `The "to" parameter ${to} must be in +E.164 format.`, '/to'));
    if ((from === undefined) === (profile === undefined)) {
      return this.reply(res, 400, error('10015', 'Bad Request', 'Send with either "from" or "messaging_profile_id".', from === undefined ? '/from' : '/messaging_profile_id'));
    }
    if (from !== undefined && (typeof from !== 'string' || !E164.test(from))) return this.reply(res, 400, error('10016', 'Phone number must be in +E.164 format', 'The "from" parameter must be in +E.164 format.', '/from'));
    if (profile !== undefined && profile !== this.profileId) return this.reply(res, 400, error('10006', 'Invalid ID', 'The messaging profile is not one of yours.', '/messaging_profile_id'));
    const problem = messageProblem(body);
    if (problem) return this.refuse(res, problem);
    if (webhookUrl !== undefined && (typeof webhookUrl !== 'string' || !/^https?:\/\/[^\s]+$/.test(webhookUrl) || webhookUrl.length > 2000)) {
      return this.reply(res, 400, error('10003', 'Invalid URL', 'The URL provided was invalid, malformed, or too long.', '/webhook_url'));
    }
    if (useProfile !== undefined && typeof useProfile !== 'boolean') return this.reply(res, 400, error('10015', 'Bad Request', '"use_profile_webhooks" must be a boolean.', '/use_profile_webhooks'));

    if (this.refusedAtSend(res, to, from ?? this.profileNumber, true)) return;
    const message: FakeMessage = {
      id: randomUUID(),
      type: media ? 'MMS' : 'SMS',
      from: from ?? this.profileNumber,
      to,
      text: text ?? '',
      media: media ?? [],
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

  private refuse(res: ServerResponse, problem: TelnyxProblem): void {
    this.reply(res, problem.status, error(problem.code, problem.title, problem.detail, problem.pointer));
  }

  /** An injected failure or a magic number's refusal, answered; false when the send goes on. */
  private refusedAtSend(res: ServerResponse, to: string, from: string, smsBlockRules: boolean): boolean {
    const failure = this.failures.shift();
    if (failure) this.reply(res, failure.status, error(failure.code, failure.title, `The message to ${to} was not accepted.`), failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
    else if (to === TELNYX_MAGIC.invalidTo) this.reply(res, 400, error('40310', "Invalid 'to' address", `The 'to' address ${to} is invalid.`, '/to'));
    else if (smsBlockRules && this.blocked.has(to)) this.reply(res, 409, error('40300', 'Blocked due to STOP message', `Messages cannot be sent from ${from} to ${to} due to an existing block rule.`));
    else if (to === TELNYX_MAGIC.broken) this.reply(res, 500, error('10007', 'Unexpected error', 'An unexpected error occured.'));
    else return false;
    return true;
  }

  /** `POST /v2/messages/rcs`: from the account's agent, its fallback from a number of the profile. */
  private rcs(res: ServerResponse, body: any): void {
    const problem = rcsProblem(body, this.profileId, this.rcsAgents);
    if (problem) return this.refuse(res, problem);
    if (this.refusedAtSend(res, body.to, body.agent_id, true)) return;
    const message = rcsMessageOf(body, !this.rcsIncapable.has(body.to));
    this.messages.set(message.id, message);
    this.reply(res, 200, { data: { id: message.id, type: 'RCS', direction: 'outbound', messaging_profile_id: message.messaging_profile_id, from: { agent_id: body.agent_id }, to: [{ phone_number: body.to, status: 'queued' }], body: body.agent_message } });
  }

  /** `POST /v2/messages/whatsapp`: from the WhatsApp-enabled number, one message per request. */
  private whatsapp(res: ServerResponse, body: any): void {
    const problem = whatsappProblem(body);
    if (problem) return this.refuse(res, problem);
    const { to, from, whatsapp_message: content, webhook_url: webhookUrl } = body;
    if (this.refusedAtSend(res, to, from, false)) return;
    const message = whatsappMessageOf(from, to, content, webhookUrl, this.profileId);
    this.messages.set(message.id, message);
    this.reply(res, 200, { data: { ...outboundPayload(message, 'queued'), body: content } });
  }
}
