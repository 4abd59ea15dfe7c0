import { OUTSIDE_WHATSAPP_WINDOW } from '../../domain/channels';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from '../../retry-after';
import { CarrierRejected, CarrierUnavailable } from '../types';
import { telnyxSdk } from './sdk';

/*
 * Telnyx's answers, classified from its documented error codes
 * (https://developers.telnyx.com/docs/messaging/messages/error-codes and /development/api-fundamentals/api-errors).
 * The words are ours: Telnyx's `title` and `detail` may quote the recipient's number, so they are never kept.
 */

const OPTED_OUT = 'The recipient has opted out of messages from this sender (replied STOP)';
const BAD_NUMBER = 'The recipient number is invalid or cannot receive text messages';
const SPAM = 'The message was blocked as spam';
const BAD_BODY = 'The message text was refused';
const BAD_SENDER = 'The sender is not enabled to send this message';
const UNDELIVERABLE = 'The message was not accepted for delivery (on WhatsApp: the template could not be used)';
const BAD_MEDIA_URL = 'A media URL was refused as invalid';
const NOT_ON_WHATSAPP = 'The recipient cannot receive WhatsApp messages on this number';
const TEMPLATE = 'WhatsApp refused the template or its variables (unknown, not approved in this language, or the variables do not fit)';
const TEMPLATE_PAUSED = 'The WhatsApp template is paused or disabled for low quality';
const MEDIA = 'The media file could not be fetched, or its size or type is not accepted';
const NOT_10DLC = 'The sender is not in an approved US A2P 10DLC campaign';
const TOLL_FREE_UNVERIFIED = 'The sender is a toll-free number that is not verified';

/** Final refusals: the same request would be refused again. */
const REJECTIONS: Record<string, { words: string; optOut?: boolean }> = {
  // Blocked due to STOP message (HTTP 409): the recipient texted STOP to this sender.
  '40300': { words: OPTED_OUT, optOut: true },
  // Invalid phone number; must be in +E.164; invalid 'to' address; not routable (landline); invalid destination.
  '10002': { words: BAD_NUMBER },
  '10016': { words: BAD_NUMBER },
  '40310': { words: BAD_NUMBER },
  '40001': { words: BAD_NUMBER },
  '40012': { words: BAD_NUMBER },
  // Blocked as spam, temporary and permanent; Telnyx's own spam filter.
  '40002': { words: SPAM },
  '40003': { words: SPAM },
  '40015': { words: SPAM },
  // Invalid message body.
  '40009': { words: BAD_BODY },
  // Invalid source number.
  '40013': { words: BAD_SENDER },
  // Undeliverable: the carrier did not accept it; for WhatsApp, Meta's catch-all, e.g. a template pending,
  // rejected, paused or disabled.
  '40008': { words: UNDELIVERABLE },
  // US A2P registration, as Telnyx's messaging error codes list them: 40010 "Not 10DLC registered" (its
  // 10DLC-specific errors) and 40329 "Toll-free not verified" (its toll-free errors); the number's
  // registration is read again at once.
  '40010': { words: NOT_10DLC },
  '40329': { words: TOLL_FREE_UNVERIFIED },
  // Invalid URL (a media URL of an MMS or WhatsApp message).
  '10003': { words: BAD_MEDIA_URL },
  // Meta's codes, which Telnyx passes through for WhatsApp: re-engagement message (more than 24 hours since
  // the client's last message), message undeliverable (not a WhatsApp user, old client), template
  // parameter count mismatch, template does not exist, template paused / disabled, media download / upload.
  '131047': { words: OUTSIDE_WHATSAPP_WINDOW },
  '131026': { words: NOT_ON_WHATSAPP },
  '132000': { words: TEMPLATE },
  '132001': { words: TEMPLATE },
  '132015': { words: TEMPLATE_PAUSED },
  '132016': { words: TEMPLATE_PAUSED },
  '131052': { words: MEDIA },
  '131053': { words: MEDIA },
};

/** Worth another attempt, with our words for a receipt that carries them: Meta's pair rate limit, throughput limit, and WhatsApp not answering. */
const RETRIED: Record<string, string> = {
  '131056': 'Too many messages to this recipient in a short time',
  '130429': 'WhatsApp throughput limit reached',
  '131000': 'WhatsApp did not answer',
  '131016': 'WhatsApp did not answer',
};

const rejectionOf = (code: string | undefined) => (code !== undefined && Object.hasOwn(REJECTIONS, code) ? REJECTIONS[code] : undefined);
const retriedWords = (code: string | undefined) => (code !== undefined && Object.hasOwn(RETRIED, code) ? RETRIED[code] : undefined);

/** What a Telnyx error code means, in our words (for receipts' codes too). */
export const telnyxCodeMeaning = (code: string): string | undefined => rejectionOf(code)?.words ?? retriedWords(code);

/** The sender's US A2P registration (10DLC, toll-free verification) forbids the text. */
export const isTelnyxRegistrationCode = (code: string) => code === '40010' || code === '40329';

/** Telnyx's code for a recipient who unsubscribed from this sender. */
export const isTelnyxOptOutCode = (code: string | undefined) => rejectionOf(code)?.optOut === true;

/**
 * Worth another attempt whatever the HTTP status: unexpected error, request timeout, too many requests,
 * and authentication / authorization failures (an operator fixing the key heals them; the delivery
 * gives up after its hour anyway).
 */
const TRANSIENT = new Set(['10007', '10008', '10011', '10009', '10010']);

/** A code is digits; anything else in that field is not kept. */
const CODE = /^\d{1,8}$/;

/** The first documented code of Telnyx's `{ errors: [{ code, title, detail }] }`, if any. */
export function telnyxErrorCode(body: unknown): string | undefined {
  const errors = (body as { errors?: unknown } | null | undefined)?.errors;
  const code = Array.isArray(errors) ? (errors[0] as { code?: unknown } | undefined)?.code : undefined;
  const text = typeof code === 'number' ? String(code) : code;
  return typeof text === 'string' && CODE.test(text) ? text : undefined;
}

/** `Retry-After` (seconds or an HTTP date), or the `retry-after-ms` the SDK also reads, in ms from now. */
export function retryAfterOf(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.min(Number(ms), MAX_RETRY_AFTER_MS);
  return retryAfterMs(headers?.get('retry-after'), now);
}

/** What an SDK call's failure means for the message: CarrierRejected or CarrierUnavailable, in our words. */
export function classifyTelnyxError(error: unknown): CarrierRejected | CarrierUnavailable {
  const { APIConnectionTimeoutError, APIError } = telnyxSdk();
  if (!(error instanceof APIError) || error.status === undefined) {
    return new CarrierUnavailable(error instanceof APIConnectionTimeoutError ? 'Telnyx did not answer in time' : 'Telnyx could not be reached');
  }
  const status = error.status;
  const code = telnyxErrorCode(error.error);
  if (status === 429 || (code && (TRANSIENT.has(code) || retriedWords(code)))) {
    return new CarrierUnavailable(`Telnyx is throttling or unavailable (HTTP ${status}${code ? `, error ${code}` : ''})`, retryAfterOf(error.headers));
  }
  if (status === 408 || status >= 500) {
    return new CarrierUnavailable(`Telnyx is unavailable (HTTP ${status}${code ? `, error ${code}` : ''})`, retryAfterOf(error.headers));
  }
  const known = rejectionOf(code);
  if (known) return new CarrierRejected(code!, known.words, known.optOut ?? false);
  return new CarrierRejected(code ?? `http_${status}`, `Telnyx refused the message (HTTP ${status})`);
}
