import { parseIsoDate } from '../assignments/request';
import { Invalid } from '../errors';
import { latestSendAt, MAX_DELAY_YEARS } from './delay';

/** A `send_at` this far in the past is taken as "now": the caller's clock, or the request's way here, may lag. */
export const SEND_AT_PAST_TOLERANCE_MS = 5 * 60_000;

/** A date-time whose zone is written: `Z` or an offset. A local time would be read in a zone the caller never named. */
const WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/;

export const INVALID_SEND_AT = 'Invalid send_at: must be an ISO 8601 date-time with its zone, such as 2030-01-01T09:00:00Z or 2030-01-01T09:00:00-05:00';

/**
 * `send_at`, the instant a message is due (docs/messages.md, "Scheduling"). Returns the instant as asked
 * (for the Idempotency-Key's fingerprint) and when the message is due: that instant, or `now` for one up
 * to five minutes past. Further past, more than ten years ahead, or without a zone is a 400.
 */
export function parseSendAt(raw: unknown, now: Date): { asked: Date; due: Date } {
  const asked = typeof raw === 'string' && WITH_ZONE.test(raw.trim()) ? parseIsoDate(raw.trim()) : undefined;
  if (!asked) throw new Invalid(INVALID_SEND_AT);
  if (asked.getTime() < now.getTime() - SEND_AT_PAST_TOLERANCE_MS) throw new Invalid('Invalid send_at: must not be in the past (5 minutes late at most, which sends now)');
  if (asked.getTime() > latestSendAt(now).getTime()) throw new Invalid(`Invalid send_at: at most ${MAX_DELAY_YEARS} years ahead`);
  return { asked, due: asked.getTime() < now.getTime() ? now : asked };
}
