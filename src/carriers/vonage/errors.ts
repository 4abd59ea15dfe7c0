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
};

/** What a Vonage error code means, in our words (for receipts' codes too). */
export const vonageCodeMeaning = (code: string): string | undefined => REJECTIONS[code]?.words;

/** Vonage's code for a recipient who unsubscribed from this sender. */
export const isVonageOptOutCode = (code: string | undefined) => code !== undefined && REJECTIONS[code]?.optOut === true;

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
  if (status === 429 || status === 401 || status === 402 || (code && TRANSIENT.has(code))) {
    return new CarrierUnavailable(`Vonage is throttling, unavailable or refusing our credentials (${detail})`, retryAfterMs(error.response.headers.get('retry-after')));
  }
  if (status === 408 || status >= 500) return new CarrierUnavailable(`Vonage is unavailable (${detail})`, retryAfterMs(error.response.headers.get('retry-after')));
  const known = code ? REJECTIONS[code] : undefined;
  if (known) return new CarrierRejected(code!, known.words, known.optOut ?? false);
  return new CarrierRejected(code ?? `http_${status}`, `Vonage refused the message (HTTP ${status})`);
}
