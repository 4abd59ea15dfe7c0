import { OUTSIDE_WHATSAPP_WINDOW } from '../../domain/channels';
import { retryAfterMs } from '../../retry-after';
import { CarrierRejected, CarrierUnavailable } from '../types';

/*
 * Vonage's answers to `POST /v1/messages`, classified from its documented errors
 * (https://developer.vonage.com/en/api-errors and /api-errors/messages): an RFC 7807 body
 * `{ type, title, detail, instance }` whose `type` ends in the error's code (`…#1150`, `…#low-balance`).
 * Only that code is kept; the words are ours, since `title`, `detail` and `invalid_parameters` may quote
 * the recipient's number.
 */

const OPTED_OUT = 'The recipient has opted out of messages from this sender';
const BAD_NUMBER = 'The recipient number is invalid or cannot receive text messages';
const BLOCKED = 'The message was blocked as spam or by the recipient\'s network';
const BAD_REQUEST = 'Vonage refused the message as malformed';
const BAD_SENDER = 'The sender is not allowed to send this message';
const ACCOUNT = 'The Vonage account may not send this message';
const NOT_ON_WHATSAPP = 'The recipient cannot receive WhatsApp messages on this number';
const TEMPLATE = 'WhatsApp refused the template or its variables (unknown, not approved in this language, or the variables do not fit)';
const TEMPLATE_PAUSED = 'The WhatsApp template is paused or disabled for low quality';
const MEDIA = 'The media file could not be fetched, or its size or type is not accepted';

/** Final refusals: the same request would be refused again. Codes from the Messages API's error list. */
const REJECTIONS: Record<string, { words: string; optOut?: boolean }> = {
  // Illegal number: the recipient has opted out of messages from this sender (replied STOP).
  '1240': { words: OPTED_OUT, optOut: true },
  // Invalid message (unrecognised prefix), number barred, non-whitelisted destination, invalid or
  // missing MSISDN, absent subscriber permanent, unroutable, destination unreachable, blocked by carrier.
  '1040': { words: BAD_NUMBER },
  '1050': { words: BAD_NUMBER },
  '1160': { words: BAD_NUMBER },
  '1170': { words: BAD_NUMBER },
  '1190': { words: BAD_NUMBER },
  '1250': { words: BAD_NUMBER },
  '1260': { words: BAD_NUMBER },
  '1280': { words: BAD_NUMBER },
  // Anti-spam rejection.
  '1210': { words: BLOCKED },
  // Missing params, invalid params, message too long, invalid TTL, invalid message class.
  '1010': { words: BAD_REQUEST },
  '1020': { words: BAD_REQUEST },
  '1090': { words: BAD_REQUEST },
  '1130': { words: BAD_REQUEST },
  '1150': { words: BAD_REQUEST },
  'invalid-params': { words: BAD_REQUEST },
  // Illegal sender address.
  '1120': { words: BAD_SENDER },
  // Partner account barred, account not enabled for REST, facility not allowed, account suspended.
  '1060': { words: ACCOUNT },
  '1080': { words: ACCOUNT },
  '1140': { words: ACCOUNT },
  'account-suspended': { words: ACCOUNT },
  // WhatsApp and MMS (the Messages API's list): outside the allowed (24-hour) window; invalid template or
  // parameters; not part of the provider network (no WhatsApp account); not suitable device; invalid
  // resource, resource too large, resource type invalid (the media URL); invalid tag.
  '1340': { words: OUTSIDE_WHATSAPP_WINDOW },
  '1022': { words: TEMPLATE },
  '1300': { words: NOT_ON_WHATSAPP },
  '1310': { words: NOT_ON_WHATSAPP },
  '1380': { words: MEDIA },
  '1381': { words: MEDIA },
  '1382': { words: MEDIA },
  '1021': { words: BAD_REQUEST },
  // Meta's own codes, which Vonage passes through for WhatsApp: re-engagement message (more than 24 hours
  // since the client's last message), template parameter count mismatch, template does not exist,
  // template paused / disabled, message undeliverable (not a WhatsApp user, old client, terms not
  // accepted), media download / upload error.
  '131047': { words: OUTSIDE_WHATSAPP_WINDOW },
  '132000': { words: TEMPLATE },
  '132001': { words: TEMPLATE },
  '132015': { words: TEMPLATE_PAUSED },
  '132016': { words: TEMPLATE_PAUSED },
  '131026': { words: NOT_ON_WHATSAPP },
  '131052': { words: MEDIA },
  '131053': { words: MEDIA },
};

/**
 * Worth another attempt, with our words for a receipt that carries them: too many messages to one
 * recipient (Vonage's 1241, Meta's pair rate limit 131056), the provider (WhatsApp) not answering
 * (1331, Meta's 131000 and 131016), Meta's throughput limit (130429).
 */
const RETRIED: Record<string, string> = {
  '1241': 'Too many messages to this recipient in a short time',
  '131056': 'Too many messages to this recipient in a short time',
  '130429': 'WhatsApp throughput limit reached',
  '1331': 'WhatsApp did not answer',
  '131000': 'WhatsApp did not answer',
  '131016': 'WhatsApp did not answer',
};

const rejectionOf = (code: string | undefined) => (code !== undefined && Object.hasOwn(REJECTIONS, code) ? REJECTIONS[code] : undefined);
const retriedWords = (code: string | undefined) => (code !== undefined && Object.hasOwn(RETRIED, code) ? RETRIED[code] : undefined);

/** What a Vonage error code means, in our words (for receipts' codes too). */
export const vonageCodeMeaning = (code: string): string | undefined => rejectionOf(code)?.words ?? retriedWords(code);

/**
 * Vonage's Messages API lists no error of its own for US A2P registration: a US carrier's refusal of an
 * unregistered 10DLC or unverified toll-free sender comes back as an illegal sender address (1120), which
 * is final already and has the number's registration read again (docs/design.md).
 */
export const isVonageRegistrationCode = (code: string) => code === '1120';

/** Vonage's code for a recipient who unsubscribed from this sender. */
export const isVonageOptOutCode = (code: string | undefined) => rejectionOf(code)?.optOut === true;

/**
 * Worth another attempt whatever the HTTP status: throttled, internal error, communication failed,
 * handset busy, network error, absent subscriber (temporary); credit and credentials, which an operator
 * heals by topping up or fixing the key (the delivery gives up after its hour anyway).
 */
const TRANSIENT = new Set(['1000', '1030', '1070', '1100', '1180', '1220', '1230', 'low-balance', 'unauthorized', 'invalid-api-key', 'jwt-expired', 'jwt-revoked', 'throttled']);

/** A code is a short token (digits or a kebab-case word); anything else in that field is not kept. */
const CODE = /^[a-z0-9][a-z0-9-]{0,39}$/i;

/** The documented code of an RFC 7807 error (`type`'s fragment, else a numeric `title`), if any. */
export function vonageErrorCode(error: unknown): string | undefined {
  const { type, title } = (error ?? {}) as { type?: unknown; title?: unknown };
  const fragment = typeof type === 'string' && type.includes('#') ? type.slice(type.lastIndexOf('#') + 1) : undefined;
  if (fragment && CODE.test(fragment)) return fragment.toLowerCase();
  const numeric = typeof title === 'number' ? String(title) : title;
  return typeof numeric === 'string' && /^\d{1,8}$/.test(numeric) ? numeric : undefined;
}


/** What the SDK throws for an HTTP error (its VetchError): the response is kept, its body unread. */
interface HttpFailure {
  response: { status: number; headers: { get(name: string): string | null }; text(): Promise<string> };
}

const isHttpFailure = (error: unknown): error is HttpFailure =>
  typeof (error as HttpFailure | null)?.response?.status === 'number' && typeof (error as HttpFailure).response.text === 'function';

async function problemOf(failure: HttpFailure): Promise<unknown> {
  try {
    return JSON.parse(await failure.response.text());
  } catch {
    return undefined;
  }
}

/** What a failed send means for the message: CarrierRejected or CarrierUnavailable, in our words. */
export async function classifyVonageError(error: unknown): Promise<CarrierRejected | CarrierUnavailable> {
  if (!isHttpFailure(error)) {
    return new CarrierUnavailable((error as Error | null)?.name === 'AbortError' ? 'Vonage did not answer in time' : 'Vonage could not be reached');
  }
  const { status } = error.response;
  const code = vonageErrorCode(await problemOf(error));
  const detail = `HTTP ${status}${code ? `, error ${code}` : ''}`;
  if (status === 429 || status === 401 || status === 402 || (code && (TRANSIENT.has(code) || retriedWords(code)))) {
    return new CarrierUnavailable(`Vonage is throttling, unavailable or refusing our credentials (${detail})`, retryAfterMs(error.response.headers.get('retry-after')));
  }
  if (status === 408 || status >= 500) return new CarrierUnavailable(`Vonage is unavailable (${detail})`, retryAfterMs(error.response.headers.get('retry-after')));
  const known = rejectionOf(code);
  if (known) return new CarrierRejected(code!, known.words, known.optOut ?? false);
  return new CarrierRejected(code ?? `http_${status}`, `Vonage refused the message (HTTP ${status})`);
}
