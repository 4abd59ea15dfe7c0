import type { CarrierCallback, Inbound, Receipt, ReceiptStatus } from '../types';
import { twilioSdk } from './client';
import { isTwilioOptOutCode } from './errors';

/*
 * Twilio's callbacks: form-encoded POSTs signed in `X-Twilio-Signature` (HMAC-SHA1 with the account's
 * auth token over the URL and the sorted parameters), checked with the SDK's `validateRequest`.
 * Status callbacks carry MessageSid, MessageStatus and, when it failed, ErrorCode; incoming texts carry
 * MessageSid, From, To and Body.
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
  read: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
};

export function parseTwilioReceipt(callback: CarrierCallback): Receipt | null {
  const params = formParams(callback.rawBody);
  const providerRef = first(params.MessageSid) ?? first(params.SmsSid);
  const status = STATUSES[first(params.MessageStatus) ?? first(params.SmsStatus) ?? ''];
  if (!providerRef || !status) return null;
  const errorCode = first(params.ErrorCode);
  const sender = first(params.From);
  const price = first(params.Price);
  const unit = first(params.PriceUnit);
  return {
    providerRef,
    messageId: callback.messageId,
    status,
    ...(errorCode && errorCode !== '0' ? { errorCode } : {}),
    ...(isTwilioOptOutCode(errorCode) && { optOut: true }),
    ...(sender?.startsWith('+') && { sender }),
    // Twilio writes a charge as a negative amount ("-0.00790"): the view shows what was charged.
    ...(price && unit ? { price: { amount: price.replace(/^-/, ''), unit } } : {}),
  };
}

export function parseTwilioInbound(callback: CarrierCallback, now = new Date()): Inbound | null {
  const params = formParams(callback.rawBody);
  const providerRef = first(params.MessageSid) ?? first(params.SmsMessageSid);
  const from = first(params.From);
  const to = first(params.To);
  const text = first(params.Body);
  const status = first(params.MessageStatus) ?? first(params.SmsStatus);
  if (!providerRef || !from || !to || text === undefined || (status !== undefined && status !== 'received')) return null;
  return { providerRef, from, to, text, receivedAt: now, channel: 'sms', media: [] };
}

/** Our number in a callback: a status callback's From (the number it went out from), an incoming text's To. */
export function twilioCallbackNumber(callback: CarrierCallback, kind: 'receipt' | 'inbound'): string | undefined {
  const params = formParams(callback.rawBody);
  const number = first(kind === 'receipt' ? params.From : params.To);
  return number?.startsWith('+') ? number : undefined;
}
