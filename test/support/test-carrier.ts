import { createHmac, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import { CarrierRejected, type Carrier, type CarrierAccepted, type CarrierCallback, type CarrierName, type CarrierSend, type Channel, type Inbound, type Receipt, type TemplateApproval } from '../../src/carriers/types';
import { request, type ApiResponse } from './http';
import { validateAgainstDocument } from './openapi';
import { startTestStack, type TestApi, type TestStack } from './stack';

/** Where the tests' carrier thinks the API is: what it signs, whatever port the test API listens on. */
export const TEST_PUBLIC_BASE_URL = 'https://sms.example.test';
export const SIGNATURE_HEADER = 'x-test-signature';

/** The body of a status callback the test carrier posts. */
export interface TestReceipt {
  kind: 'status';
  ref: string;
  status: 'queued' | Receipt['status'];
  message_id?: string;
  error_code?: string;
  price?: { amount: string; unit: string };
  at?: string;
  /** RCS: the channel that carried it (the carrier's own fallback: sms); with `fallback`, of the fallback copy under a reference of its own. */
  delivered_channel?: 'rcs' | 'sms';
  fallback?: boolean;
}

/** The body of an inbound-text callback. */
export interface TestInbound {
  kind: 'inbound';
  ref: string;
  from: string;
  to: string;
  text: string;
  at?: string;
  channel?: Channel;
  media?: { url: string; content_type: string | null; size: number | null }[];
  /** RCS: a tapped suggested reply. */
  suggestion?: { text: string; postback_data: string };
}

export interface TestCarrier extends Carrier {
  sends: CarrierSend[];
  replies: { to: string; text: string; channel?: Channel }[];
  /** What WhatsApp said of each template, by content sid or name (absent: `unknown`). */
  approvals: Map<string, TemplateApproval>;
  /** The files its inbound messages' media URLs name. */
  files: Map<string, { contentType: string; bytes: Buffer }>;
  /** Each media URL it was asked for. */
  fetched: string[];
  /** Decides each send; default: accepted as `ref-<message id>`. */
  onSend: (message: CarrierSend) => Promise<CarrierAccepted>;
  /** The signature of `body` posted to `path`. */
  sign(path: string, body: string): string;
  /** Posts a callback body to `path` on `origin`, signed over TEST_PUBLIC_BASE_URL + path (or `signature` as given; null: unsigned). */
  post(origin: string, path: string, body: TestReceipt | TestInbound | string, signature?: string | null): Promise<ApiResponse>;
}

/**
 * A carrier as small as the interface allows: it signs its callbacks with an HMAC-SHA256 of the URL and
 * the body under a secret of its own, posts JSON, and keeps what it was asked to send.
 */
export function createTestCarrier(options: { name?: CarrierName; sender?: string } = {}): TestCarrier {
  const secret = createHmac('sha256', String(Math.random())).digest();
  const sign = (url: string, body: Buffer | string) => createHmac('sha256', secret).update(url).update(body).digest('hex');
  const carrier: TestCarrier = {
    name: options.name ?? 'telnyx',
    sender: options.sender ?? '+15550001000',
    sends: [],
    replies: [],
    approvals: new Map(),
    files: new Map(),
    fetched: [],
    onSend: async (message) => ({ providerRef: `ref-${message.id}` }),
    async send(message) {
      carrier.sends.push(message);
      return carrier.onSend(message);
    },
    async findSent() {
      return null;
    },
    async verify(callback: CarrierCallback) {
      const given = Buffer.from(callback.headers[SIGNATURE_HEADER] ?? '', 'hex');
      const expected = Buffer.from(sign(callback.url, callback.rawBody), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    parseReceipt(callback): Receipt | null {
      const body = JSON.parse(callback.rawBody.toString('utf8')) as TestReceipt;
      if (body.kind !== 'status' || body.status === 'queued') return null;
      return {
        providerRef: body.ref,
        messageId: body.message_id,
        status: body.status,
        errorCode: body.error_code,
        price: body.price,
        at: body.at ? new Date(body.at) : undefined,
        ...(body.delivered_channel && { deliveredChannel: body.delivered_channel }),
        ...(body.fallback && { fallback: true }),
      };
    },
    parseInbound(callback): Inbound | null {
      const body = JSON.parse(callback.rawBody.toString('utf8')) as TestInbound;
      if (body.kind !== 'inbound') return null;
      const media = (body.media ?? []).map((m) => ({ url: m.url, contentType: m.content_type, size: m.size }));
      const suggestion = body.suggestion && { suggestion: { text: body.suggestion.text, postbackData: body.suggestion.postback_data } };
      return { providerRef: body.ref, from: body.from, to: body.to, text: body.text, receivedAt: body.at ? new Date(body.at) : new Date(), channel: body.channel ?? 'sms', media, ...suggestion };
    },
    async reply(to, text, channel) {
      carrier.replies.push({ to, text, ...(channel === 'whatsapp' && { channel }) });
    },
    async templateApproval(ref) {
      return carrier.approvals.get('contentSid' in ref ? ref.contentSid : ref.name) ?? 'unknown';
    },
    async fetchMedia(url) {
      carrier.fetched.push(url);
      const file = carrier.files.get(url);
      if (!file) throw new CarrierRejected('media-not-found', 'The carrier no longer has this file');
      return { contentType: file.contentType, size: file.bytes.length, body: Readable.from([file.bytes]) };
    },
    sign: (path, body) => sign(TEST_PUBLIC_BASE_URL + path, body),
    async post(origin, path, body, signature) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      const signed = signature === undefined ? sign(TEST_PUBLIC_BASE_URL + path, raw) : signature;
      const res = await request('POST', origin + path, { rawBody: raw, headers: { 'content-type': 'application/json', ...(signed !== null && { [SIGNATURE_HEADER]: signed }) } });
      validateAgainstDocument({ method: 'POST', path, status: res.status, contentType: res.headers.get('content-type'), body: res.body, headers: res.headers });
      return res;
    },
  };
  return carrier;
}

/** A stack whose carrier is `carrier`, a second API (`callbacks`, started with `apiOptions`) for its callbacks, and alice's token. */
export async function startCarrierStack(carrier: Carrier, apiOptions?: Parameters<TestStack['startApi']>[0]): Promise<{ stack: TestStack; callbacks: TestApi; token: string }> {
  const stack = await startTestStack({ carrier, env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
  const callbacks = await stack.startApi(apiOptions);
  return { stack, callbacks, token: stack.token('alice') };
}
