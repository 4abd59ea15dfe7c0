import { logger } from '../logger';
import { bytesInWords, CRM_ANSWER_MAX_BYTES, isResponseTooLarge } from '../net/capped-body';
import { isNonPublicAddressRefusal } from '../net/outbound';

/* What the lead workflow needs of a CRM, whichever it is: read a record, write its owner. */

/** A record as this service keeps it: a client's name, phone and time zone, and who owns it in the CRM. */
export interface CrmRecord {
  name: string | null;
  /** As the CRM holds it; the use case normalises it to E.164 or drops it. */
  phone: string | null;
  /** An IANA time zone when the CRM has one. */
  timezone: string | null;
  ownerId: string | null;
}

export interface CrmApi {
  /** The record, or null when the CRM has none with this id (deleted, merged). */
  fetchRecord(recordId: string): Promise<CrmRecord | null>;
  writeOwner(recordId: string, crmOwnerId: string): Promise<void>;
  /** The ids of the records created since `since` (the catch-up sweep's listing), at most `limit`, oldest first. */
  listCreatedSince(since: Date, limit: number): Promise<string[]>;
}

/**
 * The CRM did not do what was asked. `final`: asking again cannot help (a 4xx other than 429);
 * otherwise it may after `retryAfterMs` (a 429's Retry-After) or a backoff. The message holds our
 * words and the status, never the CRM's body.
 */
export class CrmRequestFailed extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly final: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'CrmRequestFailed';
  }
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMsOf(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Our log keeps what the CRM said its error was (its code, never its text, which may echo a record),
 * for the operator: answers and events say only our words and the status.
 */
export function logCrmFailure(crm: string, action: string, status: number | undefined, crmCode: unknown): void {
  const code = typeof crmCode === 'string' || typeof crmCode === 'number' ? String(crmCode).slice(0, 100) : undefined;
  logger.warn({ event: 'crm.request_failed', crm, action, status, code }, `${crm} refused to ${action}`);
}

/** The guard refused the CRM's address (a URL setting or an override naming our own network): final. */
export function crmAddressNotPublic(crm: string, action: string): CrmRequestFailed {
  return new CrmRequestFailed(`${crm} was not asked to ${action}: its address is not public (private, loopback and link-local addresses are refused)`, undefined, true);
}

/** The CRM's answer was over CRM_ANSWER_MAX_BYTES and was cut off: final, as the same record answers the same. */
export function crmAnswerTooLarge(crm: string, action: string): CrmRequestFailed {
  return new CrmRequestFailed(`${crm}'s answer to ${action} was larger than ${bytesInWords(CRM_ANSWER_MAX_BYTES)} and was not read`, undefined, true);
}

/**
 * A failed request by its HTTP status: 429 and 5xx (and no status: the network) may pass; other 4xx
 * will not. `error` is the SDK's; `crmCode` the CRM's own code for it, logged and not repeated.
 */
export function failureOfStatus(crm: string, action: string, status: number | undefined, retryAfter?: string | null, error?: unknown, crmCode?: unknown): CrmRequestFailed {
  if (isNonPublicAddressRefusal(error)) return crmAddressNotPublic(crm, action);
  if (isResponseTooLarge(error)) return crmAnswerTooLarge(crm, action);
  if (status !== undefined || crmCode !== undefined) logCrmFailure(crm, action, status, crmCode);
  const final = status !== undefined && status >= 400 && status < 500 && status !== 429 && status !== 408;
  return new CrmRequestFailed(`${crm} refused to ${action}${status ? ` (HTTP ${status})` : ' (no answer)'}`, status, final, retryAfterMsOf(retryAfter));
}

/** HubSpot's `hs_timezone` values (`america_slash_new_york`) as IANA names (`America/New_York`); the caller checks the name. */
export function ianaOfHubspotZone(value: string | null | undefined): string | null {
  if (!value) return null;
  return value
    .split('_slash_')
    .map((part) => part.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('_'))
    .join('/');
}
