import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A Twilio-compatible Messages API on a real HTTP port: the tests' fake of Twilio and the simulator
 * `npm start` runs. It checks each request as Twilio documents it (Basic auth with the account SID and
 * auth token or an API key, form-encoded, `To` in E.164, `From` or `MessagingServiceSid`, `Body`,
 * `StatusCallback` an absolute URL), answers with Twilio's JSON shapes and error bodies (`code`,
 * `message`, `more_info`, `status`), refuses Twilio's magic test numbers with their documented codes,
 * throttles on demand (429 with Retry-After), and posts status callbacks and incoming texts signed the
 * way Twilio signs them (HMAC-SHA1 with the auth token over the URL and the sorted parameters, base64).
 */

/** Twilio's magic "To" numbers (test credentials) and the error each answers with. */
export const MAGIC_TO_ERRORS: Readonly<Record<string, { code: number; message: string }>> = {
  '+15005550001': { code: 21211, message: "The 'To' number is not a valid phone number." },
  '+15005550002': { code: 21612, message: "The 'To' phone number is not currently reachable via SMS." },
  '+15005550003': { code: 21408, message: 'Permission to send an SMS has not been enabled for the region indicated by the To number.' },
  '+15005550004': { code: 21610, message: 'Attempt to send to unsubscribed recipient' },
  '+15005550009': { code: 21614, message: "'To' number is not a valid mobile number" },
};

/**
 * Numbers of ours (not Twilio's) that are accepted and then come back `undelivered` with a carrier
 * error: +15005550033 to +15005550037 get errors 30003 to 30007.
 */
export const MAGIC_UNDELIVERED: Readonly<Record<string, number>> = {
  '+15005550033': 30003,
  '+15005550034': 30004,
  '+15005550035': 30005,
  '+15005550036': 30006,
  '+15005550037': 30007,
};

const E164 = /^\+[1-9]\d{1,14}$/;
const API_VERSION = '2010-04-01';

export interface TwilioApiMessage {
  sid: string;
  account_sid: string;
  api_version: string;
  body: string;
  date_created: string;
  date_updated: string;
  date_sent: string | null;
  direction: 'outbound-api' | 'inbound';
  error_code: number | null;
  error_message: string | null;
  from: string | null;
  messaging_service_sid: string | null;
  num_media: string;
  num_segments: string;
  price: string | null;
  price_unit: string;
  status: string;
  subresource_uris: { media: string };
  to: string;
  uri: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The form's fields (POST) or the query's (GET). */
  params: Record<string, string>;
  /** What this API answered. */
  status: number;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface TwilioApiOptions {
  accountSid: string;
  authToken: string;
  /** API keys (SID and secret) accepted besides the auth token. */
  apiKeys?: { sid: string; secret: string }[];
  /** The senders this account owns; others are refused with 21606 (From) or 21701 (MessagingServiceSid). */
  from?: string[];
  messagingServiceSids?: string[];
  /** Post `sent` then `delivered` (or `undelivered` for the magic numbers) to each StatusCallback after this many ms; undefined: only when told. */
  autoReceiptsAfterMs?: number;
  /** How long a send's answer takes after the message was created (a slow network: a worker may die in between). */
  answerDelayMs?: number;
  /** What a delivered receipt says was charged, as Twilio writes it. */
  price?: { amount: string; unit: string };
  /** Told when an automatic callback could not be posted or was refused. */
  onCallbackError?: (error: unknown) => void;
  /**
   * The simulator's own door for a person's text (not Twilio's): `POST /simulator/sms` with the
   * account's Basic credentials and JSON `{ "from", "text", "to"? }` posts it, signed, to `url` as sent to `to` (one of `from`'s numbers), else `number`.
   */
  inbound?: { url: string; number: string };
  /** Subaccounts (a business's own account) whose credentials open their own `/Accounts/{sid}/`; their callbacks are signed with their token. */
  subaccounts?: { accountSid: string; authToken: string }[];
  /** The simulator: any subaccount (`AC…` and a token) is taken on first use and kept, as an operator registers it. */
  anySubaccount?: boolean;
}

export interface CallbackAnswer {
  status: number;
  body: string;
}

/** Twilio's date format (RFC 2822, "+0000"). */
const twilioDate = (date: Date) => date.toUTCString().replace('GMT', '+0000');
const sid = (prefix: string) => prefix + randomBytes(16).toString('hex');

/** GSM-7 or UCS-2 segments, roughly as Twilio counts them (the simulator's answer only). */
function segmentsOf(text: string): number {
  const gsm = /^[\x20-\x7E\n\r£¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¡ÄÖÑÜ§¿äöñüà€]*$/.test(text);
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  return text.length <= single ? 1 : Math.ceil(text.length / multi);
}

/** Twilio's signature of a request to `url` with these form parameters. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

/** POSTs a form to `url` signed as Twilio signs its webhooks (or unsigned, or with another token). */
export async function postSignedForm(url: string, params: Record<string, string>, authToken: string | undefined): Promise<CallbackAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', 'user-agent': 'TwilioProxy/1.1' };
  if (authToken) headers['x-twilio-signature'] = twilioSignature(authToken, url, params);
  const response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(params).toString() });
  return { status: response.status, body: await response.text() };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class TwilioApi {
  readonly messages: TwilioApiMessage[] = [];
  readonly requests: RecordedRequest[] = [];
  /** Callbacks posted (automatic or asked for) and what they were answered. */
  readonly callbacks: { url: string; params: Record<string, string>; answer?: CallbackAnswer }[] = [];
  private server?: Server;
  private base = '';
  private readonly statusCallbacks = new Map<string, string>();
  private readonly pending = new Set<NodeJS.Timeout>();
  private refusals: { status: number; code: number; retryAfterSeconds?: number; left: number }[] = [];
  /** Each account's auth token: the main one and its subaccounts. */
  private readonly tokens: Map<string, string>;

  constructor(readonly options: TwilioApiOptions) {
    this.tokens = new Map([[options.accountSid, options.authToken], ...(options.subaccounts ?? []).map((sub) => [sub.accountSid, sub.authToken] as [string, string])]);
  }

  /** The token that signs callbacks about messages of `accountSid`. */
  private tokenOf(accountSid: string): string {
    return this.tokens.get(accountSid) ?? this.options.authToken;
  }

  /** The account that last sent from `number` (whose token signs a text to it), else the main one. */
  private accountOfNumber(number: string): string {
    return [...this.messages].reverse().find((message) => message.direction === 'outbound-api' && message.from === number)?.account_sid ?? this.options.accountSid;
  }

  /** The REST base (what TWILIO_API_URL names). */
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

  /** Messages sent to `to` (outbound), oldest first. */
  sentTo(to: string): TwilioApiMessage[] {
    return this.messages.filter((message) => message.to === to && message.direction === 'outbound-api');
  }

  /** Posts a status callback for message `sid` to the StatusCallback it was sent with (or `url`), signed unless told otherwise. */
  async postStatus(
    messageSid: string,
    status: 'queued' | 'sent' | 'delivered' | 'undelivered' | 'failed',
    extra: { errorCode?: number; price?: { amount: string; unit: string }; url?: string; authToken?: string | null } = {},
  ): Promise<CallbackAnswer> {
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

  /** Posts an incoming text (a person texting `to` from `from`) to `url`, signed unless told otherwise. */
  async postInbound(url: string, text: { from: string; to: string; body: string; messagingServiceSid?: string }, authToken?: string | null): Promise<CallbackAnswer> {
    const messageSid = sid('SM');
    const now = twilioDate(new Date());
    const account = this.accountOfNumber(text.to);
    this.messages.push({
      ...this.messageShape(messageSid, text.to, text.from, text.messagingServiceSid ?? null, text.body, now, account),
      direction: 'inbound',
      status: 'received',
    });
    const params: Record<string, string> = {
      AccountSid: account,
      ApiVersion: API_VERSION,
      Body: text.body,
      From: text.from,
      MessageSid: messageSid,
      NumMedia: '0',
      NumSegments: String(segmentsOf(text.body)),
      SmsMessageSid: messageSid,
      SmsSid: messageSid,
      SmsStatus: 'received',
      To: text.to,
      ...(text.messagingServiceSid ? { MessagingServiceSid: text.messagingServiceSid } : {}),
    };
    return this.post(url, params, authToken === undefined ? this.tokenOf(account) : authToken);
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
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const record: RecordedRequest = { method: req.method ?? '', path: url.pathname, headers: req.headers, params: {}, status: 0, at: Date.now() };
    this.requests.push(record);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.method === 'POST' && url.pathname === '/simulator/sms' && this.options.inbound) {
        this.authenticate(req);
        const text = safeJson(raw) as { from?: unknown; to?: unknown; text?: unknown } | null;
        if (typeof text?.from !== 'string' || !E164.test(text.from)) throw new ApiError(400, 21211, '`from` must be a phone number in E.164 (+14155550100)');
        if (text.to !== undefined && (typeof text.to !== 'string' || !E164.test(text.to))) throw new ApiError(400, 21211, '`to` must be a phone number in E.164 (+15005550006)');
        const to = (text.to as string | undefined) ?? this.options.inbound.number;
        if (this.options.from && !this.options.from.includes(to)) throw new ApiError(400, 21606, `${to} is not one of the simulator's numbers (${this.options.from.join(', ')})`);
        if (typeof text.text !== 'string' || !text.text) throw new ApiError(400, 21602, '`text` is required');
        const delivered = await this.postInbound(this.options.inbound.url, { from: text.from, to, body: text.text });
        answer(200, { sid: this.messages.at(-1)!.sid, to, url: this.options.inbound.url, answer: delivered.status });
        return;
      }
      const account = this.authenticate(req, url.pathname);
      const messagesPath = `/${API_VERSION}/Accounts/${account}/Messages.json`;
      if (req.method === 'POST' && url.pathname === messagesPath) {
        const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
        if (contentType !== 'application/x-www-form-urlencoded') throw new ApiError(400, 20001, 'Content-Type must be application/x-www-form-urlencoded');
        record.params = Object.fromEntries(new URLSearchParams(raw));
        const created = this.create(record.params, account);
        if (this.options.answerDelayMs) await new Promise((resolve) => setTimeout(resolve, this.options.answerDelayMs));
        answer(201, created);
        return;
      }
      if (req.method === 'GET' && url.pathname === messagesPath) {
        record.params = Object.fromEntries(url.searchParams);
        answer(200, this.list(record.params, messagesPath));
        return;
      }
      const one = new RegExp(`^/${API_VERSION}/Accounts/${account}/Messages/(SM[0-9a-f]{32})\\.json$`).exec(url.pathname);
      if (req.method === 'GET' && one) {
        const message = this.messages.find((candidate) => candidate.sid === one[1]);
        if (!message) throw new ApiError(404, 20404, `The requested resource ${url.pathname} was not found`);
        answer(200, message);
        return;
      }
      throw new ApiError(404, 20404, `The requested resource ${url.pathname} was not found`);
    } catch (error) {
      if (!(error instanceof ApiError)) {
        answer(500, { code: 20500, message: 'Internal Server Error', more_info: 'https://www.twilio.com/docs/errors/20500', status: 500 });
        return;
      }
      answer(error.status, { code: error.code, message: error.message, more_info: `https://www.twilio.com/docs/errors/${error.code}`, status: error.status }, error.headers);
    }
  }

  /** The account the request's Basic credentials open, which must be the one its path names (when it names one). */
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
    const account = /^\/2010-04-01\/Accounts\/([^/]+)\//.exec(path)?.[1];
    if (account !== authenticated) throw new ApiError(404, 20404, `The requested resource ${path} was not found`);
    return account;
  }

  private create(params: Record<string, string>, account: string): TwilioApiMessage {
    const refusal = this.refusals.find((candidate) => candidate.left > 0);
    if (refusal) {
      refusal.left -= 1;
      this.refusals = this.refusals.filter((candidate) => candidate.left > 0);
      const message = refusal.status === 429 ? 'Too Many Requests' : 'Service Unavailable';
      throw new ApiError(refusal.status, refusal.code, message, refusal.retryAfterSeconds !== undefined ? { 'retry-after': String(refusal.retryAfterSeconds) } : {});
    }
    const { To: to, From: from, MessagingServiceSid: service, Body: body, StatusCallback: statusCallback } = params;
    if (!to) throw new ApiError(400, 21604, "A 'To' phone number is required.");
    if (!from && !service) throw new ApiError(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message");
    if (from && service) throw new ApiError(400, 21603, "Send either 'From' or 'MessagingServiceSid', not both");
    if (from && this.options.from && !this.options.from.includes(from)) throw new ApiError(400, 21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`);
    if (service && (!/^MG[0-9a-f]{32}$/.test(service) || (this.options.messagingServiceSids && !this.options.messagingServiceSids.includes(service)))) {
      throw new ApiError(400, 21701, `The Messaging Service Sid ${service} is invalid.`);
    }
    if (!body) throw new ApiError(400, 21602, 'Message body is required.');
    if (body.length > 1600) throw new ApiError(400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    const magic = MAGIC_TO_ERRORS[to];
    if (magic) throw new ApiError(400, magic.code, magic.message);
    if (!E164.test(to)) throw new ApiError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (statusCallback !== undefined && !/^https?:\/\/[^\s/]+/.test(statusCallback)) throw new ApiError(400, 21609, 'The StatusCallback URL is not valid.');
    const message = this.messageShape(sid('SM'), to, from ?? null, service ?? null, body, twilioDate(new Date()), account);
    // Through a messaging service the sender is chosen later: `from` is null and the status `accepted`.
    if (service) message.status = 'accepted';
    this.messages.push(message);
    if (statusCallback) this.statusCallbacks.set(message.sid, statusCallback);
    if (statusCallback && this.options.autoReceiptsAfterMs !== undefined) this.receiptsLater(message.sid);
    return { ...message };
  }

  private receiptsLater(messageSid: string): void {
    const after = this.options.autoReceiptsAfterMs!;
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      const message = this.messages.find((candidate) => candidate.sid === messageSid)!;
      const failure = MAGIC_UNDELIVERED[message.to];
      const refused = (answer: CallbackAnswer) => {
        if (answer.status >= 300) throw new Error(`the status callback was answered ${answer.status}`);
      };
      void (async () => {
        refused(await this.postStatus(messageSid, 'sent'));
        if (failure) refused(await this.postStatus(messageSid, 'undelivered', { errorCode: failure }));
        else refused(await this.postStatus(messageSid, 'delivered', this.options.price ? { price: this.options.price } : {}));
      })().catch((error) => this.options.onCallbackError?.(error));
    }, after);
    this.pending.add(timer);
  }

  /** Twilio's list: filtered by To, From and DateSent (to the day), newest first, paged by PageSize. */
  private list(params: Record<string, string>, path: string) {
    const day = (value: string) => value.slice(0, 10);
    const sentDay = (message: TwilioApiMessage) => (message.date_sent ? new Date(message.date_sent).toISOString().slice(0, 10) : undefined);
    const pageSize = Math.min(Math.max(Number(params.PageSize) || 50, 1), 1000);
    const page = Math.max(Number(params.Page) || 0, 0);
    const matching = this.messages
      .filter((message) => !params.To || message.to === params.To)
      .filter((message) => !params.From || message.from === params.From)
      .filter((message) => !params.DateSent || sentDay(message) === day(params.DateSent))
      .filter((message) => !params['DateSent>'] || (sentDay(message) ?? '') >= day(params['DateSent>']))
      .filter((message) => !params['DateSent<'] || (sentDay(message) ?? '9999') <= day(params['DateSent<']))
      .reverse();
    const slice = matching.slice(page * pageSize, (page + 1) * pageSize);
    const query = (p: number) => {
      const next = new URLSearchParams(params);
      next.set('PageSize', String(pageSize));
      next.set('Page', String(p));
      return `${path}?${next.toString()}`;
    };
    return {
      end: page * pageSize + Math.max(slice.length - 1, 0),
      first_page_uri: query(0),
      next_page_uri: (page + 1) * pageSize < matching.length ? query(page + 1) : null,
      page,
      page_size: pageSize,
      previous_page_uri: page > 0 ? query(page - 1) : null,
      messages: slice,
      start: page * pageSize,
      uri: query(page),
    };
  }
}
