import { z } from 'zod';

/** An IANA zone name (`America/New_York`, `Asia/Kolkata`, `UTC`): letters first, then at most two `/` parts. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]{0,31}(?:\/[A-Za-z0-9_+-]{1,32}){0,2}$/;

export const TIME_ZONE_RULE = 'must be an IANA time zone such as America/New_York';

/**
 * Whether the runtime's time zone data knows this IANA name (case-insensitively, aliases included).
 * UTC offsets (`+05:30`) and abbreviations that are no zone are not.
 */
export function isTimeZone(name: string): boolean {
  if (!ZONE_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A client's or a send window's `timezone`, kept as the caller spelled it. */
export const timeZone = z.string().refine(isTimeZone, TIME_ZONE_RULE);
