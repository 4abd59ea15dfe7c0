import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, twilioDate } from './api-error';
import { type InboundMessage, MAGIC_TO_ERRORS, MAGIC_UNDELIVERED, type RecordedRequest, type TwilioApiMessage, type TwilioApiOptions } from './api-types';
import { A2pRegistry } from './a2p-api';
import { ContentStore } from './content-api';
import { parseInboundTrigger, parseRegistrationTrigger, parseWindowTrigger } from './doors';
import { MEDIA_LINK_PATH, MEDIA_LIST_PATH, MEDIA_PATH, MediaStore, mediaPath, mediaView, type SentMedia } from './media';
import { mediaTypeOf } from './media-types';
import { listMessages } from './message-list';
import { parseSendRequest } from './send-request';
import { type CallbackAnswer, postSignedForm } from './signing';
import { addressFor, addressOf, type SimulatedChannel, WhatsAppWindows } from './whatsapp';
import { offeredReplies, rcsRoute, type OfferedReply } from './rcs';

export { type CallbackAnswer, postSignedForm, twilioSignature } from './signing';
export { type InboundMessage, MAGIC_TO_ERRORS, MAGIC_UNDELIVERED, type RecordedRequest, type TwilioApiMessage, type TwilioApiOptions } from './api-types';

/*
 * A Twilio-compatible Messages API on a real HTTP port: the tests' fake of Twilio and the simulator
 * `npm start` runs. It checks each request as Twilio documents it (Basic auth with the account SID and
 * auth token or an API key, form-encoded; send-request.ts), answers with Twilio's JSON shapes and error
 * bodies (`code`, `message`, `more_info`, `status`), refuses Twilio's magic test numbers with their
 * documented codes, throttles on demand (429 with Retry-After), and posts status callbacks and incoming
 * messages signed the way Twilio signs them. WhatsApp (`whatsapp:` addresses, the 24-hour window: a
 * free-form message outside it is accepted, then fails with 63016; read receipts), MMS (`MediaUrl`, never
 * fetched: a message's Media list shows the URLs it was sent; inbound files at Twilio-shaped media URLs,
 * media.ts) and the Content API (content-api.ts) as Twilio carries them.
 */

const API_VERSION = '2010-04-01';
/** The largest request body read (an inbound trigger's media in base64); beyond: 413. */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

type Status = 'queued' | 'sent' | 'delivered' | 'read' | 'undelivered' | 'failed';

const sid = (prefix: string) => prefix + randomBytes(16).toString('hex');

/** GSM-7 or UCS-2 segments, roughly as Twilio counts them (the simulator's answer only). */
function segmentsOf(text: string): number {
  const gsm = /^[\x20-\x7E\n\r£¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¡ÄÖÑÜ§¿äöñüà€]*$/.test(text);
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  return text.length <= single ? 1 : Math.ceil(text.length / multi);
}

export class TwilioApi {
  readonly messages: TwilioApiMessage[] = [];
  readonly requests: RecordedRequest[] = [];
  /** Callbacks posted (automatic or asked for) and what they were answered. */
  readonly callbacks: { url: string; params: Record<string, string>; answer?: CallbackAnswer }[] = [];
  /** The Content API's contents (SIMULATOR_TEMPLATES among them). */
  readonly contents: ContentStore;
  /** Inbound messages' files. */
  readonly media = new MediaStore();
  /** Outbound messages' media URLs, by message SID (never fetched). */
  readonly sentMedia = new Map<string, SentMedia[]>();
  /** When each client last wrote on WhatsApp to each of our numbers. */
  readonly windows = new WhatsAppWindows();
  /** Each number's A2P registration (a2p-api.ts): approved for the account's own numbers until set otherwise. */
  readonly registrations: A2pRegistry;
  private server?: Server;
  private base = '';
  private readonly statusCallbacks = new Map<string, string>();
  /** How each outbound message ends: its channel, and the error it fails with (63016 outside the window, 63027 an unapproved template). */
  private readonly outcomes = new Map<string, { channel: SimulatedChannel; failure?: number; replies?: OfferedReply[] }>();
  private readonly pending = new Set<NodeJS.Timeout>();
  private refusals: { status: number; code: number; retryAfterSeconds?: number; left: number }[] = [];
  /** Each account's auth token: the main one and its subaccounts. */
  private readonly tokens: Map<string, string>;

  constructor(readonly options: TwilioApiOptions) {
    this.tokens = new Map([[options.accountSid, options.authToken], ...(options.subaccounts ?? []).map((sub) => [sub.accountSid, sub.authToken] as [string, string])]);
    this.contents = new ContentStore(options.accountSid, options.templateApprovalAfterMs);
    this.registrations = new A2pRegistry(options.from ?? []);
  }

  /** The token that signs callbacks about messages of `accountSid`. */
  private tokenOf(accountSid: string): string {
    return this.tokens.get(accountSid) ?? this.options.authToken;
  }

  /** The account that last sent from `number` (whose token signs a message to it), else the main one. */
  private accountOfNumber(number: string): string {
    return [...this.messages].reverse().find((message) => message.direction === 'outbound-api' && message.from !== null && addressOf(message.from).number === number)?.account_sid ?? this.options.accountSid;
  }

  /** The REST base (what TWILIO_API_URL, and TWILIO_CONTENT_API_URL, name). */
  get url(): string {
    return this.base;
  }

  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    this.base = `http://${host}:${(this.server.address() as AddressInfo).port}`;
    return this.base;
  }

  async stop(): Promise<void> {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
    this.contents.stop();
    if (!this.server) return;
    await new Promise<void>((resolve) => {
      this.server!.close(() => resolve());
      this.server!.closeAllConnections();
    });
  }

  /** The next `count` sends are answered 429 (Twilio's 20429) with `Retry-After: retryAfterSeconds`. */
  throttleNext(count: number, retryAfterSeconds = 1): void {
    this.refusals.push({ status: 429, code: 20429, retryAfterSeconds, left: count });
  }

  /** The next `count` sends are answered with Twilio failing (503, 20503). */
  failNext(count: number, status = 503, code = 20503): void {
    this.refusals.push({ status, code, left: count });
  }

  /** Messages sent to `to` (outbound, any channel: `to` is the number without a prefix), oldest first. */
  sentTo(to: string): TwilioApiMessage[] {
    return this.messages.filter((message) => addressOf(message.to).number === to && message.direction === 'outbound-api');
  }

  /** Posts a status callback for message `sid` to the StatusCallback it was sent with (or `url`), signed unless told otherwise. */
  async postStatus(messageSid: string, status: Status, extra: { errorCode?: number; price?: { amount: string; unit: string }; url?: string; authToken?: string | null } = {}): Promise<CallbackAnswer> {
    const message = this.messages.find((candidate) => candidate.sid === messageSid);
    if (!message) throw new Error(`No message ${messageSid}`);
    const url = extra.url ?? this.statusCallbacks.get(messageSid);
    if (!url) throw new Error(`Message ${messageSid} was sent without a StatusCallback`);
    message.status = status;
    message.date_updated = twilioDate(new Date());
    if (status === 'sent' || status === 'delivered') message.date_sent ??= twilioDate(new Date());
    if (extra.errorCode) message.error_code = extra.errorCode;
    const params: Record<string, string> = {
      AccountSid: message.account_sid,
      ApiVersion: API_VERSION,
      From: message.from ?? '',
      MessageSid: message.sid,
      MessageStatus: status,
      SmsSid: message.sid,
      SmsStatus: status,
      To: message.to,
      ...(message.messaging_service_sid ? { MessagingServiceSid: message.messaging_service_sid } : {}),
      ...(extra.errorCode ? { ErrorCode: String(extra.errorCode) } : {}),
      ...(extra.price ? { Price: extra.price.amount, PriceUnit: extra.price.unit } : {}),
    };
    return this.post(url, params, extra.authToken === undefined ? this.tokenOf(message.account_sid) : extra.authToken);
  }

  /**
   * Posts an incoming message (a person writing to `to` from `from`, by SMS or WhatsApp, with files or
   * not) to `url`, signed unless told otherwise. Its files are kept at Twilio-shaped media URLs; a
   * WhatsApp message opens the window for that pair.
   */
  async postInbound(url: string, text: InboundMessage, authToken?: string | null): Promise<CallbackAnswer> {
    const { params, account } = this.receive(text);
    return this.post(url, params, authToken === undefined ? this.tokenOf(account) : authToken);
  }

  /** Keeps an incoming message (and its files), opens the WhatsApp window; its callback's parameters. */
  private receive(text: InboundMessage): { params: Record<string, string>; account: string } {
    const channel = text.channel ?? 'sms';
    const files = text.media ?? [];
    const messageSid = sid(files.length ? 'MM' : 'SM');
    const now = new Date();
    const account = this.accountOfNumber(text.to);
    // On RCS `to` is already our RCS sender's agent (the door found it).
    const [from, to] = [addressFor(channel, text.from), addressFor(channel, text.to)];
    this.messages.push({
      ...this.messageShape(messageSid, to, from, text.messagingServiceSid ?? null, text.body, twilioDate(now), account),
      direction: 'inbound',
      status: 'received',
      num_media: String(files.length),
    });
    if (channel === 'whatsapp') this.windows.set(text.to, text.from, now);
    const media = files.map((file) => this.media.add(account, messageSid, file.contentType, file.data));
    const params: Record<string, string> = {
      AccountSid: account,
      ApiVersion: API_VERSION,
      Body: text.body,
      From: from,
      MessageSid: messageSid,
      NumMedia: String(media.length),
      NumSegments: String(segmentsOf(text.body)),
      SmsMessageSid: messageSid,
      SmsSid: messageSid,
      SmsStatus: 'received',
      To: to,
      ...(channel === 'whatsapp' ? { WaId: text.from.slice(1) } : {}),
      ...(text.button ? { ButtonText: text.button.text, ButtonPayload: text.button.payload } : {}),
      ...Object.fromEntries(media.flatMap((file, n) => [[`MediaUrl${n}`, this.base + mediaPath(file)], [`MediaContentType${n}`, file.contentType]])),
      ...(text.messagingServiceSid ? { MessagingServiceSid: text.messagingServiceSid } : {}),
    };
    return { params, account };
  }

  private async post(url: string, params: Record<string, string>, authToken: string | null | undefined): Promise<CallbackAnswer> {
    const record: (typeof this.callbacks)[number] = { url, params };
    this.callbacks.push(record);
    record.answer = await postSignedForm(url, params, authToken === null ? undefined : (authToken ?? this.options.authToken));
    return record.answer;
  }

  private messageShape(messageSid: string, to: string, from: string | null, messagingServiceSid: string | null, body: string, now: string, account = this.options.accountSid): TwilioApiMessage {
    const uri = `/${API_VERSION}/Accounts/${account}/Messages/${messageSid}.json`;
    return {
      sid: messageSid,
      account_sid: account,
      api_version: API_VERSION,
      body,
      date_created: now,
      date_updated: now,
      date_sent: null,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from,
      messaging_service_sid: messagingServiceSid,
      num_media: '0',
      num_segments: String(segmentsOf(body)),
      price: null,
      price_unit: 'USD',
      status: 'queued',
      subresource_uris: { media: uri.replace('.json', '/Media.json') },
      to,
      uri,
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const record: RecordedRequest = { method: req.method ?? '', path: url.pathname, headers: req.headers, params: {}, all: {}, status: 0, at: Date.now() };
    this.requests.push(record);
    const send = (status: number, body: string | Buffer, headers: Record<string, string>) => {
      record.status = status;
      res.writeHead(status, headers);
      res.end(body);
    };
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => send(status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', ...headers });
    try {
      if (size > MAX_REQUEST_BYTES) throw new ApiError(413, 20001, `The request body is larger than ${MAX_REQUEST_BYTES} bytes`);
      const link = MEDIA_LINK_PATH.exec(url.pathname);
      if (req.method === 'GET' && link) {
        // The credential-free short-lived URL a media URL redirects to (Twilio's CDN).
        const media = this.media.byLink(link[1]);
        if (!media) return send(404, 'Not Found', { 'content-type': 'text/plain' });
        return send(200, media.data, { 'content-type': media.contentType, 'content-length': String(media.data.length) });
      }
      if (req.method === 'POST' && url.pathname.startsWith('/simulator/') && this.options.inbound) return answer(200, await this.door(req, url.pathname, raw));
      if (url.pathname.startsWith('/v1/Content')) {
        this.authenticate(req);
        const content = this.contents.handle(req.method ?? '', url.pathname, raw, this.base);
        if (content) return answer(content.status, content.body);
      }
      if (url.pathname.startsWith('/v1/')) {
        const registered = this.registrations.handle(req.method ?? '', url.pathname, url.searchParams, this.authenticate(req));
        if (registered !== undefined) {
          this.record(record, url.searchParams);
          return answer(200, registered);
        }
      }
      const account = this.authenticate(req, url.pathname);
      const registered = this.registrations.handle(req.method ?? '', url.pathname, url.searchParams, account);
      if (registered !== undefined) {
        this.record(record, url.searchParams);
        return answer(200, registered);
      }
      const messagesPath = `/${API_VERSION}/Accounts/${account}/Messages.json`;
      if (req.method === 'POST' && url.pathname === messagesPath) {
        const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
        if (contentType !== 'application/x-www-form-urlencoded') throw new ApiError(400, 20001, 'Content-Type must be application/x-www-form-urlencoded');
        const form = new URLSearchParams(raw);
        this.record(record, form);
        const created = this.create(form, account);
        if (this.options.answerDelayMs) await new Promise((resolve) => setTimeout(resolve, this.options.answerDelayMs));
        return answer(201, created);
      }
      if (req.method === 'GET' && url.pathname === messagesPath) {
        this.record(record, url.searchParams);
        return answer(200, listMessages(this.messages, record.params, messagesPath));
      }
      const one = new RegExp(`^/${API_VERSION}/Accounts/${account}/Messages/((?:SM|MM)[0-9a-f]{32})\\.json$`).exec(url.pathname);
      if (req.method === 'GET' && one) {
        const message = this.messages.find((candidate) => candidate.sid === one[1]);
        if (!message) throw new ApiError(404, 20404, `The requested resource ${url.pathname} was not found`);
        return answer(200, message);
      }
      const list = MEDIA_LIST_PATH.exec(url.pathname);
      if (req.method === 'GET' && list) return answer(200, this.mediaList(list[1], list[2], url.pathname));
      const file = MEDIA_PATH.exec(url.pathname);
      if (req.method === 'GET' && file) {
        const media = this.media.at(file[1], file[2], file[3]);
        // An outbound file is the URL it was sent (the simulator fetches none).
        const sent = media ? undefined : this.sentFile(file[1], file[2], file[3]);
        if (sent) return send(307, '', { location: sent.url });
        if (!media) throw new ApiError(404, 20404, `The requested resource ${url.pathname} was not found`);
        return send(307, '', { location: `${this.base}/simulator/media/${this.media.link(media)}` });
      }
      if (req.method === 'GET' && url.pathname === `/${API_VERSION}/Accounts/${account}.json`) return answer(200, this.accountView(account));
      throw new ApiError(404, 20404, `The requested resource ${url.pathname} was not found`);
    } catch (error) {
      if (!(error instanceof ApiError)) return answer(500, { code: 20500, message: 'Internal Server Error', more_info: 'https://www.twilio.com/docs/errors/20500', status: 500 });
      return answer(error.status, error.body, error.headers);
    }
  }

  /** An outbound message's media URL, if that message is this account's. */
  private sentFile(accountSid: string, messageSid: string, mediaSid: string): SentMedia | undefined {
    const message = this.messages.find((candidate) => candidate.sid === messageSid && candidate.account_sid === accountSid);
    return message ? this.sentMedia.get(messageSid)?.find((media) => media.sid === mediaSid) : undefined;
  }

  /** Twilio's Media list of a message: an inbound one's files, an outbound one's media URLs (in the order sent), in one page. */
  private mediaList(accountSid: string, messageSid: string, path: string) {
    const message = this.messages.find((candidate) => candidate.sid === messageSid && candidate.account_sid === accountSid);
    if (!message) throw new ApiError(404, 20404, `The requested resource ${path} was not found`);
    const files = message.direction === 'inbound' ? this.media.of(accountSid, messageSid) : (this.sentMedia.get(messageSid) ?? []);
    const page = `${path}?PageSize=50&Page=0`;
    return {
      end: Math.max(files.length - 1, 0),
      first_page_uri: page,
      media_list: files.map((media) => mediaView(accountSid, messageSid, media, message.date_created)),
      next_page_uri: null,
      page: 0,
      page_size: 50,
      previous_page_uri: null,
      start: 0,
      uri: page,
    };
  }

  private record(record: RecordedRequest, form: URLSearchParams): void {
    record.params = Object.fromEntries(form);
    for (const [name, value] of form) (record.all[name] ??= []).push(value);
  }

  /** The simulator's own doors (doors.ts). */
  private async door(req: IncomingMessage, path: string, raw: string): Promise<unknown> {
    this.authenticate(req);
    const inbound = this.options.inbound!;
    if (path === '/simulator/sms') {
      const trigger = parseInboundTrigger(raw, this.options.from, inbound.number);
      const rcs = trigger.channel === 'rcs' ? this.rcsConversation(trigger.from, trigger.to, trigger.tap) : undefined;
      const { params, account } = this.receive({
        from: trigger.from,
        to: rcs?.agent ?? trigger.to,
        body: trigger.text,
        channel: trigger.channel,
        media: trigger.media,
        ...(rcs?.button && { button: rcs.button }),
      });
      const delivered = await this.post(inbound.url, params, this.tokenOf(account));
      const media = Array.from({ length: trigger.media.length }, (_, n) => params[`MediaUrl${n}`]);
      return { sid: params.MessageSid, to: trigger.to, channel: trigger.channel, media, url: inbound.url, answer: delivered.status };
    }
    if (path === '/simulator/registration') {
      const { number, status } = parseRegistrationTrigger(raw);
      this.registrations.set(number, status);
      return { number, status };
    }
    if (path === '/simulator/whatsapp-window') {
      const window = parseWindowTrigger(raw, this.options.from, inbound.number);
      this.windows.set(window.to, window.from, window.lastInboundAt);
      return { from: window.from, to: window.to, last_inbound_at: window.lastInboundAt?.toISOString() ?? null, open: this.windows.isOpen(window.to, window.from) };
    }
    throw new ApiError(404, 20404, `The requested resource ${path} was not found`);
  }

  /**
   * The RCS sender that last wrote by RCS to `phone` with `number` as its fallback, and the reply `tap`
   * names among that message's suggested replies: a person answers the agent that wrote to them.
   */
  private rcsConversation(phone: string, number: string, tap: string | undefined): { agent: string; button?: { text: string; payload: string } } {
    const last = [...this.messages].reverse().find((m) => m.direction === 'outbound-api' && m.to === `rcs:${phone}` && this.fallbacks.get(m.sid) === number);
    if (!last?.from) throw new ApiError(400, 21606, `No RCS sender with ${number} as its fallback has written to ${phone} by RCS`);
    const agent = addressOf(last.from).number;
    if (tap === undefined) return { agent };
    const reply = this.outcomes.get(last.sid)?.replies?.find((offered) => offered.title === tap);
    if (!reply) throw new ApiError(400, 20001, `The last RCS message to ${phone} offers no suggested reply "${tap}"`);
    return { agent, button: { text: reply.title, payload: reply.id } };
  }

  /** Each RCS message's fallback number (`FallbackFrom`). */
  private readonly fallbacks = new Map<string, string>();

  /**
   * The account the request's Basic credentials open. A path naming an account must name that one, or
   * one of its subaccounts when the credentials are the main account's (as on Twilio).
   */
  private authenticate(req: IncomingMessage, path?: string): string {
    const match = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const [user, ...rest] = match ? Buffer.from(match[1], 'base64').toString('utf8').split(':') : [];
    const password = rest.join(':');
    if (this.options.anySubaccount && user && /^AC[0-9a-f]{32}$/.test(user) && password && !this.tokens.has(user)) this.tokens.set(user, password);
    const apiKey = (this.options.apiKeys ?? []).some((key) => key.sid === user && key.secret === password);
    const valid = apiKey || (user !== undefined && this.tokens.get(user) === password && password !== '');
    if (!valid) throw new ApiError(401, 20003, 'Authenticate');
    // An API key is the main account's; an account's own credentials open that account.
    const authenticated = apiKey ? this.options.accountSid : user!;
    if (path === undefined) return authenticated;
    const account = /^\/2010-04-01\/Accounts\/([^/]+?)(?:\/|\.json$)/.exec(path)?.[1];
    const parentOf = authenticated === this.options.accountSid && account !== undefined && this.tokens.has(account);
    if (account !== authenticated && !parentOf) throw new ApiError(404, 20404, `The requested resource ${path} was not found`);
    return account!;
  }

  private accountView(account: string) {
    const now = twilioDate(new Date());
    return { sid: account, owner_account_sid: this.options.accountSid, friendly_name: account === this.options.accountSid ? 'Simulated account' : 'Simulated subaccount', status: 'active', type: 'Full', date_created: now, date_updated: now, uri: `/${API_VERSION}/Accounts/${account}.json` };
  }

  private create(form: URLSearchParams, account: string): TwilioApiMessage {
    const refusal = this.refusals.find((candidate) => candidate.left > 0);
    if (refusal) {
      refusal.left -= 1;
      this.refusals = this.refusals.filter((candidate) => candidate.left > 0);
      const message = refusal.status === 429 ? 'Too Many Requests' : 'Service Unavailable';
      throw new ApiError(refusal.status, refusal.code, message, refusal.retryAfterSeconds !== undefined ? { 'retry-after': String(refusal.retryAfterSeconds) } : {});
    }
    const send = parseSendRequest(form, { numbers: this.options.from, messagingServiceSids: this.options.messagingServiceSids, contents: this.contents, magic: MAGIC_TO_ERRORS });
    // Through a service with FallbackFrom: RCS from the service's RCS sender where the handset takes it, else SMS from FallbackFrom.
    const route = send.service && send.fallbackFrom ? rcsRoute(send.service, send.fallbackFrom, send.toNumber) : undefined;
    const message = this.messageShape(sid(send.mediaUrls.length ? 'MM' : 'SM'), route?.to ?? send.to, route?.from ?? send.from, send.service, send.body, twilioDate(new Date()), account);
    if (route) this.fallbacks.set(message.sid, send.fallbackFrom!);
    message.num_media = String(send.mediaUrls.length);
    if (send.mediaUrls.length) {
      this.sentMedia.set(message.sid, send.mediaUrls.map((url) => ({ sid: sid('ME'), url, contentType: mediaTypeOf(new URL(url).pathname) ?? 'application/octet-stream' })));
    }
    // Through a messaging service the sender is chosen later: `from` is null and the status `accepted`.
    if (send.service && !route) message.status = 'accepted';
    this.messages.push(message);
    // Through a messaging service, the window of any of the account's numbers with the client will do.
    const senders = send.from ? [addressOf(send.from).number] : (this.options.from ?? []);
    const windowOpen = senders.some((ours) => this.windows.isOpen(ours, send.toNumber));
    const failure = send.channel !== 'whatsapp' ? undefined : send.content ? (send.content.approval === 'approved' ? undefined : 63027) : windowOpen ? undefined : 63016;
    this.outcomes.set(message.sid, { channel: route?.channel ?? send.channel, failure, ...(route?.channel === 'rcs' && { replies: offeredReplies(send.content?.types) }) });
    if (send.statusCallback) this.statusCallbacks.set(message.sid, send.statusCallback);
    if (send.statusCallback && this.options.autoReceiptsAfterMs !== undefined) this.receiptsLater(message.sid);
    return { ...message };
  }

  /** How a message ends: its channel, and the error it fails with (63016 outside WhatsApp's window, 63027 a template not approved). */
  outcomeOf(messageSid: string): { channel: SimulatedChannel; failure?: number } | undefined {
    return this.outcomes.get(messageSid);
  }

  /**
   * Posts the receipts a message meets, as the automatic ones do but at once (a test's fake without
   * automatic receipts): `failed` with its WhatsApp error; else `sent`, then `undelivered` (the magic
   * numbers) or `delivered`, and on WhatsApp `read` unless `read: false`. Throws if one is refused.
   */
  async postReceipts(messageSid: string, options: { read?: boolean } = {}): Promise<void> {
    const refused = (answer: CallbackAnswer) => {
      if (answer.status >= 300) throw new Error(`the status callback was answered ${answer.status}`);
    };
    const message = this.messages.find((candidate) => candidate.sid === messageSid);
    const outcome = this.outcomes.get(messageSid);
    if (!message || !outcome) throw new Error(`No message ${messageSid} was sent`);
    if (outcome.failure) return refused(await this.postStatus(messageSid, 'failed', { errorCode: outcome.failure }));
    refused(await this.postStatus(messageSid, 'sent'));
    const undelivered = MAGIC_UNDELIVERED[addressOf(message.to).number];
    if (undelivered) return refused(await this.postStatus(messageSid, 'undelivered', { errorCode: undelivered }));
    refused(await this.postStatus(messageSid, 'delivered', this.options.price ? { price: this.options.price } : {}));
    if ((outcome.channel === 'whatsapp' || outcome.channel === 'rcs') && options.read !== false) refused(await this.postStatus(messageSid, 'read'));
  }

  /** The automatic receipts: postReceipts after `autoReceiptsAfterMs`, a WhatsApp message's `read` after `readReceiptsAfterMs` more. */
  private receiptsLater(messageSid: string): void {
    const later = (after: number, post: () => Promise<void>) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        post().catch((error) => this.options.onCallbackError?.(error));
      }, after);
      this.pending.add(timer);
    };
    later(this.options.autoReceiptsAfterMs!, async () => {
      await this.postReceipts(messageSid, { read: false });
      const outcome = this.outcomes.get(messageSid)!;
      const delivered = this.messages.find((candidate) => candidate.sid === messageSid)?.status === 'delivered';
      if ((outcome.channel === 'whatsapp' || outcome.channel === 'rcs') && delivered) {
        later(this.options.readReceiptsAfterMs ?? this.options.autoReceiptsAfterMs!, async () => {
          const answer = await this.postStatus(messageSid, 'read');
          if (answer.status >= 300) throw new Error(`the status callback was answered ${answer.status}`);
        });
      }
    });
  }
}
