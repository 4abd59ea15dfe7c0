import type { CarrierCallback, Inbound, InboundMedia, Receipt, ReceiptStatus } from '../types';
import { parseTwilioAddress } from './addresses';
import { twilioSdk } from './client';
import { isTwilioOptOutCode } from './errors';

/*
 * Twilio's callbacks: form-encoded POSTs signed in `X-Twilio-Signature` (HMAC-SHA1 with the account's
 * auth token over the URL and the sorted parameters), checked with the SDK's `validateRequest`.
 * Status callbacks carry MessageSid, MessageStatus and, when it failed, ErrorCode; incoming messages carry
 * MessageSid, From, To, Body and their files (NumMedia, MediaUrl{n}, MediaContentType{n}). On WhatsApp,
 * From and To are `whatsapp:`-prefixed.
 */

/** The form's parameters as the signature covers them (a repeated name keeps every value). */
export function formParams(rawBody: Buffer): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(rawBody.toString('utf8'))) {
    const seen = params[name];
    // Appended in place: a name repeated thousands of times costs linear time, not a copy per value.
    if (Array.isArray(seen)) seen.push(value);
    else params[name] = seen === undefined ? value : [seen, value];
  }
  return params;
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function header(callback: CarrierCallback, name: string): string | undefined {
  const key = Object.keys(callback.headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : callback.headers[key];
}

export function verifyTwilioSignature(authToken: string, callback: CarrierCallback): boolean {
  const signature = header(callback, 'x-twilio-signature');
  if (!signature) return false;
  return twilioSdk().validateRequest(authToken, signature, callback.url, formParams(callback.rawBody));
}

/** Twilio's message statuses we record; the others (accepted, queued, sending, scheduled, receiving…) say nothing new. */
const STATUSES: Readonly<Record<string, ReceiptStatus>> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  undelivered: 'undelivered',
  failed: 'failed',
};

export function parseTwilioReceipt(callback: CarrierCallback): Receipt | null {
  const params = formParams(callback.rawBody);
  const providerRef = first(params.MessageSid) ?? first(params.SmsSid);
  const given = first(params.MessageStatus) ?? first(params.SmsStatus) ?? '';
  const status = Object.hasOwn(STATUSES, given) ? STATUSES[given] : undefined;
  if (!providerRef || !status) return null;
  const errorCode = first(params.ErrorCode);
  const from = parseTwilioAddress(first(params.From));
  const sender = from?.number;
  const price = first(params.Price);
  const unit = first(params.PriceUnit);
  return {
    providerRef,
    messageId: callback.messageId,
    status,
    ...(errorCode && errorCode !== '0' ? { errorCode } : {}),
    ...(isTwilioOptOutCode(errorCode) && { optOut: true }),
    ...(sender?.startsWith('+') && { sender }),
    // Our RCS sender (`rcs:<agent>`) carried it; from the number, an RCS message went by Twilio's SMS fallback (applyReceipt).
    ...(from?.channel === 'rcs' && { deliveredChannel: 'rcs' as const }),
    // Twilio writes a charge as a negative amount ("-0.00790"): the view shows what was charged.
    ...(price && unit ? { price: { amount: price.replace(/^-/, ''), unit } } : {}),
  };
}

/** The files an incoming message carried: NumMedia, then MediaUrl{n} and MediaContentType{n} for each. */
function mediaOf(params: Record<string, string | string[]>): InboundMedia[] | undefined {
  const count = Number(first(params.NumMedia) ?? '0');
  if (!Number.isInteger(count) || count < 0 || count > 10) return undefined;
  const media: InboundMedia[] = [];
  for (let n = 0; n < count; n++) {
    const url = first(params[`MediaUrl${n}`]);
    if (!url) return undefined;
    media.push({ url, contentType: first(params[`MediaContentType${n}`]) || null, size: null });
  }
  return media;
}

export function parseTwilioInbound(callback: CarrierCallback, now = new Date()): Inbound | null {
  const params = formParams(callback.rawBody);
  const providerRef = first(params.MessageSid) ?? first(params.SmsMessageSid);
  const from = parseTwilioAddress(first(params.From));
  const to = parseTwilioAddress(first(params.To));
  const media = mediaOf(params);
  // A picture alone comes with an empty Body (or none).
  const text = first(params.Body) ?? (media?.length ? '' : undefined);
  const status = first(params.MessageStatus) ?? first(params.SmsStatus);
  if (!providerRef || !from || !to || from.channel !== to.channel || !media || text === undefined || (status !== undefined && status !== 'received')) return null;
  // A tapped suggestion (RCS, as WhatsApp's quick replies): its text is the body, its id the payload.
  const payload = first(params.ButtonPayload);
  const tapped = from.channel === 'rcs' && payload ? { suggestion: { text: first(params.ButtonText) || text, postbackData: payload } } : {};
  return { providerRef, from: from.number, to: to.number, text: tapped.suggestion?.text ?? text, receivedAt: now, channel: from.channel, media, ...tapped };
}

/**
 * Our number in a callback (without Twilio's `whatsapp:`): a status callback's From (the number it went
 * out from), an incoming message's To; on RCS our agent (`rcs:<agent>`), which names its number's account.
 */
export function twilioCallbackNumber(callback: CarrierCallback, kind: 'receipt' | 'inbound'): string | undefined {
  const params = formParams(callback.rawBody);
  const address = parseTwilioAddress(first(kind === 'receipt' ? params.From : params.To));
  return address?.number.startsWith('+') || address?.channel === 'rcs' ? address.number : undefined;
}
