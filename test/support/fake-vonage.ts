import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import jwt from 'jsonwebtoken';
import { type CarrierFailure, FakeCarrierServer, messageOf, type PostedWebhook } from './fake-carrier';
import { type ClientFile, FakeMediaStore } from './fake-media';
import { FakeVonageRegistrations } from './fake-vonage-10dlc';
import { type VonageInboundContent, vonageInboundBody } from './fake-vonage-inbound';
import { invalidVonageParameter } from './fake-vonage-requests';

/*
 * A local Vonage Messages API as Vonage documents it: `POST /v1/messages` with JSON, authenticated by a
 * JWT (RS256, signed with the application's private key, claim `application_id`) or Basic key:secret;
 * SMS, MMS and WhatsApp requests checked per channel (./fake-vonage-requests.ts), `to`/`from` in E.164
 * without the `+`, optional `client_ref` and `webhook_url`. Answers `202 { message_uuid }` or an RFC 7807
 * problem `{ type, title, detail, instance }`, records every request, and posts status (with WhatsApp's
 * `read`) and inbound webhooks (SMS, MMS, WhatsApp) signed as Vonage signs them: a JWT (HS256, the
 * signature secret) in `Authorization: Bearer …` whose `payload_hash` is the SHA-256 of the body. Clients'
 * files are served at `GET /v3/media/<id>` only with the JWT of the application they came to ("Secure
 * inbound media").
 */

/** Numbers (E.164) the fake refuses or fails, as Twilio's test numbers do. */
export const VONAGE_MAGIC = {
  /** 422, 1170: invalid or missing MSISDN. */
  invalidTo: '+15005550001',
  /** Accepted; its status webhook says rejected with 1240 (the recipient opted out of this sender). */
  optedOut: '+15005550004',
  /** 500, 1030: internal error, every time. */
  broken: '+15005550005',
  /** 402, low-balance. */
  lowBalance: '+15005550006',
  /** WhatsApp: the client last wrote more than 24 hours ago; a free-form message is accepted, then rejected with 1340 (a template goes). */
  outsideWindow: '+15005550008',
} as const;

export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface FakeVonageMessage {
  message_uuid: string;
  channel: 'sms' | 'mms' | 'whatsapp' | 'rcs';
  message_type: string;
  to: string;
  from: string;
  /** The text, or a file's caption ('' for none). */
  text: string;
  client_ref?: string;
  webhook_url?: string;
  /** The request as Vonage took it. */
  request: Record<string, any>;
}

function problem(code: string, title: string, detail: string, extra: Record<string, unknown> = {}) {
  const base = /^\d+$/.test(code) ? 'https://developer.vonage.com/api-errors/messages' : 'https://developer.vonage.com/api-errors';
  return { type: `${base}#${code}`, title, detail, instance: randomUUID(), ...extra };
}

export class FakeVonage extends FakeCarrierServer {
  readonly applicationId = randomUUID();
  readonly apiKey = randomUUID().slice(0, 8);
  readonly apiSecret = randomUUID().replace(/-/g, '').slice(0, 16);
  readonly signatureSecret = randomUUID().replace(/-/g, '');
  /** The application's key pair: the adapter signs with the private key, the fake checks with the public one. */
  readonly privateKey: string;
  private readonly publicKey: string;
  readonly requests: FakeRequest[] = [];
  readonly messages = new Map<string, FakeVonageMessage>();
  /** Clients' files of inbound WhatsApp and MMS messages. */
  readonly media = new FakeMediaStore();
  /** Handsets (E.164) that take no RCS: an RCS message to them is rejected, and its failover goes. */
  readonly rcsIncapable = new Set<string>();
  private readonly failures: CarrierFailure[] = [];
  /** The 10DLC API (./fake-vonage-10dlc.ts): numbers' campaigns, read with Basic key:secret only. */
  readonly registrations = new FakeVonageRegistrations(() => `Basic ${Buffer.from(`${this.apiKey}:${this.apiSecret}`).toString('base64')}`);

  constructor() {
    super();
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    this.publicKey = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  }

  /** The carrier's settings for this fake: the application's JWT credentials, the signature secret and the fake's URL. */
  settings(from: string) {
    return { VONAGE_APPLICATION_ID: this.applicationId, VONAGE_PRIVATE_KEY: this.privateKey, VONAGE_FROM: from, VONAGE_SIGNATURE_SECRET: this.signatureSecret, VONAGE_API_URL: this.url };
  }

  /** Other applications (a business's own), by id: the public key their JWTs are checked with. */
  private readonly otherApplications = new Map<string, string>();

  /** Another application, in another account: its id, its private key, its account's API key and signature secret. */
  addApplication(): { applicationId: string; privateKey: string; apiKey: string; signatureSecret: string } {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const applicationId = randomUUID();
    this.otherApplications.set(applicationId, publicKey.export({ format: 'pem', type: 'spki' }).toString());
    return { applicationId, privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), apiKey: randomUUID().slice(0, 8), signatureSecret: randomUUID().replace(/-/g, '') };
  }

  /** The host the SDK is given (VONAGE_API_URL). */
  get url(): string {
    return `${this.origin}`;
  }

  /** The next `count` sends answer this error (e.g. 429 with Retry-After) instead of being accepted. */
  failNext(failure: CarrierFailure, count = 1): void {
    for (let i = 0; i < count; i += 1) this.failures.push(failure);
  }

  /** The sends (`POST /v1/messages`) received, in order. */
  get sends(): FakeRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages');
  }

  /** Vonage's signed-webhook JWT for a body: HS256 with `secret` (default the fake's), `payload_hash`, `iat` (unix seconds). */
  signature(body: string, options: { secret?: string; iat?: number; payloadHash?: string; apiKey?: string; applicationId?: string } = {}): string {
    const claims = {
      iat: options.iat ?? Math.floor(Date.now() / 1000),
      jti: randomUUID(),
      iss: 'Vonage',
      payload_hash: options.payloadHash ?? createHash('sha256').update(body).digest('hex'),
      api_key: options.apiKey ?? this.apiKey,
      application_id: options.applicationId ?? this.applicationId,
    };
    return jwt.sign(claims, options.secret ?? this.signatureSecret, { algorithm: 'HS256' });
  }

  /** POSTs a body to `url` as Vonage does; `headers` replace the signature (e.g. none, a forged one). */
  async post(url: string, body: string, headers: Record<string, string> = { authorization: `Bearer ${this.signature(body)}` }): Promise<PostedWebhook> {
    return this.callbacks.post(url, body, { 'content-type': 'application/json', 'user-agent': 'Vonage-Messages', ...headers });
  }

  /** A status webhook's body (Messages API v1); `read` is WhatsApp's only. */
  statusBody(message: FakeVonageMessage, status: string, error?: { code: string; detail?: string }): string {
    if (status === 'read' && message.channel !== 'whatsapp' && message.channel !== 'rcs') throw new Error('Vonage reports read for WhatsApp and RCS messages only');
    return JSON.stringify({
      message_uuid: message.message_uuid,
      to: message.to,
      from: message.from,
      timestamp: new Date().toISOString(),
      status,
      channel: message.channel,
      ...(message.client_ref !== undefined ? { client_ref: message.client_ref } : {}),
      ...(status === 'submitted' || status === 'delivered' ? { usage: { currency: 'EUR', price: '0.0333' } } : {}),
      ...(message.channel === 'sms' && (status === 'submitted' || status === 'delivered') ? { sms: { count_total: '1' } } : {}),
      destination: { network_code: '310260' },
      ...(error ? { error: { type: `https://developer.vonage.com/api-errors/messages#${error.code}`, title: Number(error.code), detail: error.detail ?? `Message to ${message.to} failed`, instance: randomUUID() } } : {}),
    });
  }

  /**
   * Posts a status webhook for a message to its `webhook_url` (or `url`): delivered by default; rejected
   * with 1240 for the opted-out magic number; any status and error on request.
   */
  async postStatus(uuid: string, status?: string, error?: { code: string }, url?: string): Promise<PostedWebhook & { sentBody: string }> {
    const message = this.message(uuid);
    const optedOut = `+${message.to}` === VONAGE_MAGIC.optedOut;
    // WhatsApp refuses a free-form message outside the customer-service window: Vonage's 1340.
    const outside = `+${message.to}` === VONAGE_MAGIC.outsideWindow && message.channel === 'whatsapp' && message.message_type !== 'template';
    const refusal = optedOut ? { code: '1240' } : outside ? { code: '1340' } : undefined;
    const body = this.statusBody(message, status ?? (refusal ? 'rejected' : 'delivered'), error ?? refusal);
    const target = url ?? message.webhook_url;
    if (!target) throw new Error('the message has no webhook_url: name the application status URL');
    return { sentBody: body, ...(await this.post(target, body)) };
  }

  /**
   * An RCS message's outcome as Vonage reports a failover sequence (each webhook with `workflow: {
   * workflow_id, item_number, items_total }`): to a capable handset `delivered` on RCS; to an incapable one
   * RCS `rejected`, then its failover SMS (a message of its own, from the number) `submitted` and `delivered`.
   */
  async postRcsOutcome(uuid: string): Promise<{ failover?: FakeVonageMessage }> {
    const message = this.message(uuid);
    const failover: Record<string, any>[] = message.request.failover ?? [];
    const workflow = (item: number) => (failover.length > 0 ? { workflow: { workflow_id: message.message_uuid, item_number: item, items_total: failover.length + 1 } } : {});
    const post = async (m: FakeVonageMessage, status: string, item: number, error?: { code: string }) => {
      const body = JSON.stringify({ ...JSON.parse(this.statusBody(m, status, error)), ...workflow(item) });
      await this.post(message.webhook_url!, body);
    };
    if (!this.rcsIncapable.has(`+${message.to}`)) {
      await post(message, 'delivered', 1);
      return {};
    }
    await post(message, 'rejected', 1, { code: '1300' });
    if (failover.length === 0) return {};
    const request = failover[0]!;
    const sms: FakeVonageMessage = { message_uuid: randomUUID(), channel: request.channel, message_type: request.message_type, to: request.to, from: request.from, text: request.text ?? '', request, ...(message.client_ref !== undefined ? { client_ref: message.client_ref } : {}), webhook_url: message.webhook_url };
    this.messages.set(sms.message_uuid, sms);
    await post(sms, 'submitted', 2);
    await post(sms, 'delivered', 2);
    return { failover: sms };
  }

  /** Posts a client's RCS message to `url` (to our agent): typed text, or a tapped suggestion (`reply { id, title }`). */
  async postInboundRcs(url: string, from: string, agent: string, content: { text: string } | { tap: { title: string; id: string } }): Promise<PostedWebhook & { id: string }> {
    const id = randomUUID();
    const kind = 'text' in content ? { message_type: 'text', text: content.text } : { message_type: 'reply', reply: content.tap };
    const body = JSON.stringify({ channel: 'rcs', message_uuid: id, to: agent, from: from.replace(/^\+/, ''), timestamp: new Date().toISOString(), ...kind });
    return { id, ...(await this.post(url, body)) };
  }

  /** An inbound SMS webhook's body (Messages API v1). `from` and `to` are E.164; Vonage drops the `+`. */
  inboundBody(text: string, from: string, to: string, uuid = randomUUID()): string {
    return JSON.stringify({
      channel: 'sms',
      message_uuid: uuid,
      to: to.replace(/^\+/, ''),
      from: from.replace(/^\+/, ''),
      timestamp: new Date().toISOString(),
      text,
      sms: { num_messages: '1', ...(text.trim() ? { keyword: text.trim().split(/\s+/)[0]!.toUpperCase() } : {}) },
      usage: { currency: 'EUR', price: '0.0057' },
      message_type: 'text',
    });
  }

  /** Posts a client's text to `url`, the application's inbound URL. */
  async postInbound(url: string, text: string, from: string, to: string): Promise<PostedWebhook & { id: string; sentBody: string }> {
    const id = randomUUID();
    const sentBody = this.inboundBody(text, from, to, id);
    return { id, sentBody, ...(await this.post(url, sentBody)) };
  }

  /**
   * Posts a client's WhatsApp or MMS message to `url`: a text, or a file (kept by the fake, for this
   * fake's own application unless `owner` names another) with its caption.
   */
  async postInboundOn(
    channel: 'whatsapp' | 'mms',
    url: string,
    from: string,
    to: string,
    content: { text?: string; file?: ClientFile & { name?: string } },
    owner: string = this.applicationId,
  ): Promise<PostedWebhook & { id: string; sentBody: string; mediaUrl?: string }> {
    const id = randomUUID();
    const stored = content.file && this.media.add(content.file, owner);
    const mediaUrl = stored && `${this.origin}/v3/media/${stored.id}`;
    const inbound: VonageInboundContent = stored
      ? { file: { kind: content.file!.kind ?? 'image', url: mediaUrl!, ...(content.file!.caption !== undefined ? { caption: content.file!.caption } : {}), ...(content.file!.name ? { name: content.file!.name } : {}) } }
      : { text: content.text ?? '' };
    const sentBody = vonageInboundBody(channel, from, to, inbound, id);
    return { id, sentBody, ...(mediaUrl ? { mediaUrl } : {}), ...(await this.post(url, sentBody)) };
  }

  protected override readonly errorContentType = 'application/problem+json';

  message(uuid: string): FakeVonageMessage {
    return messageOf(this.messages, uuid);
  }

  /** The application a JWT (RS256 by the application's key) was signed for, or undefined. */
  private applicationOf(header: string | undefined): string | undefined {
    const bearer = /^Bearer (.+)$/.exec(header ?? '');
    if (!bearer) return undefined;
    try {
      const claimed = (jwt.decode(bearer[1]!) as jwt.JwtPayload | null)?.application_id;
      const publicKey = claimed === this.applicationId ? this.publicKey : this.otherApplications.get(claimed);
      if (!publicKey) return undefined;
      const claims = jwt.verify(bearer[1]!, publicKey, { algorithms: ['RS256'] }) as jwt.JwtPayload;
      return claims.application_id === claimed && typeof claims.jti === 'string' ? claimed : undefined;
    } catch {
      return undefined;
    }
  }

  /** JWT (RS256 by the application's key, for this application) or Basic key:secret. */
  private authorized(header: string | undefined): boolean {
    if (/^Bearer /.test(header ?? '')) return this.applicationOf(header) !== undefined;
    const basic = /^Basic (.+)$/.exec(header ?? '');
    return Boolean(basic) && Buffer.from(basic![1]!, 'base64').toString('utf8') === `${this.apiKey}:${this.apiSecret}`;
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const { pathname: path, searchParams } = new URL(req.url ?? '/', 'http://fake');
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    this.requests.push({ method: req.method ?? '', path, headers: req.headers, body });
    const registration = this.registrations.answer(req.method ?? '', path, searchParams, req.headers.authorization);
    if (registration) return this.reply(res, registration.status, registration.body);
    if (!this.authorized(req.headers.authorization)) return this.reply(res, 401, problem('unauthorized', 'Invalid credentials supplied', 'You did not provide correct credentials.'));
    const media = /^\/v3\/media\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && media) return this.serveMedia(req, res, decodeURIComponent(media[1]!));
    if (req.method === 'POST' && path === '/v1/messages') return this.send(req, res, body);
    return this.reply(res, 404, problem('not-found', 'Not Found', 'The requested resource does not exist, or you do not have access to it.'));
  }

  /** A client's file, for the application it came to only (Secure inbound media: its JWT, never Basic). */
  private serveMedia(req: IncomingMessage, res: ServerResponse, id: string): void {
    const file = this.media.files.get(id);
    if (!file) return this.reply(res, 404, problem('not-found', 'Not Found', 'The requested resource does not exist, or you do not have access to it.'));
    if (this.applicationOf(req.headers.authorization) !== file.owner) return this.reply(res, 401, problem('unauthorized', 'Invalid credentials supplied', 'You did not provide correct credentials.'));
    this.media.serve(res, file);
  }

  private send(req: IncomingMessage, res: ServerResponse, body: any): void {
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return this.reply(res, 415, problem('unsupported-media-type', 'Unsupported Media Type', 'The request body must be JSON.'));
    const invalid = invalidVonageParameter(body);
    if (invalid) return this.reply(res, 422, problem('1020', 'Invalid params', 'The value of one or more parameters is invalid.', { invalid_parameters: [invalid] }));
    const { message_type: type, channel, to, from, text, client_ref: clientRef, webhook_url: webhookUrl } = body;

    const failure = this.failures.shift();
    if (failure) return this.reply(res, failure.status, problem(failure.code, failure.title, `The message to ${to} was not accepted.`), failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
    const e164 = `+${to}`;
    if (e164 === VONAGE_MAGIC.invalidTo) return this.reply(res, 422, problem('1170', 'Invalid or Missing MSISDN', `The number ${to} is not a valid MSISDN.`));
    if (e164 === VONAGE_MAGIC.lowBalance) return this.reply(res, 402, problem('low-balance', 'Low balance', 'This request could not be performed due to your account balance being low.'));
    if (e164 === VONAGE_MAGIC.broken) return this.reply(res, 500, problem('1030', 'Internal error', 'There was an error processing your request in the Platform.'));

    const words = text ?? body[type]?.caption ?? (Array.isArray(body.content) ? body.content[0]?.caption : undefined) ?? '';
    const message: FakeVonageMessage = { message_uuid: randomUUID(), channel, message_type: type, to, from, text: words, request: body, ...(clientRef !== undefined ? { client_ref: clientRef } : {}), ...(webhookUrl !== undefined ? { webhook_url: webhookUrl } : {}) };
    this.messages.set(message.message_uuid, message);
    this.reply(res, 202, { message_uuid: message.message_uuid });
  }
}
