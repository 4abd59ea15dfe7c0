/**
 * A delay as the caller wrote it, in calendar parts: `P1M` is "the same day next month", not 30 days.
 * Equal delays written differently (`300`, `5m`, `PT5M`) have equal parts.
 */
export interface Delay {
  years: number;
  months: number;
  days: number;
  milliseconds: number;
}

export const MAX_DELAY_YEARS = 10;

const ZERO: Delay = { years: 0, months: 0, days: 0, milliseconds: 0 };
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** Enough digits for ten years in seconds; longer numbers are rejected before any arithmetic. */
const MAX_DIGITS = 12;

const SECONDS = new RegExp(`^\\d{1,${MAX_DIGITS}}$`);
const UNITS = new RegExp(`^(?:\\d{1,${MAX_DIGITS}}\\s*[smhd]\\s*)+$`, 'i');
const UNIT_PART = /(\d+)\s*([smhd])/gi;
const ISO_DURATION = new RegExp(
  `^P(?:(\\d{1,${MAX_DIGITS}})Y)?(?:(\\d{1,${MAX_DIGITS}})M)?(?:(\\d{1,${MAX_DIGITS}})W)?(?:(\\d{1,${MAX_DIGITS}})D)?` +
    `(?:T(?:(\\d{1,${MAX_DIGITS}})H)?(?:(\\d{1,${MAX_DIGITS}})M)?(?:(\\d{1,${MAX_DIGITS}})(?:[.,](\\d{1,3}))?S)?)?$`,
  'i',
);

/** The forms parseDelay reads, for the answer to one it cannot (`Invalid delay`, the contract's words, stays the detail). */
export const DELAY_FORMS = 'A delay is a whole number of seconds (90), numbers with units s, m, h, d (90s, 5m, 1h30m), or an ISO 8601 duration (PT5M, P1D); empty or 0 sends now; at most 10 years';

/**
 * Reads `delay`: absent, empty or `0` is immediate; `30` is seconds; `90s`, `5m`, `2h`, `1d` and
 * sums such as `1h30m`; ISO 8601 durations such as `PT5M`, `P1DT2H`, `P1M`. Undefined when unreadable.
 */
export function parseDelay(raw: unknown): Delay | undefined {
  if (raw === undefined || raw === null) return ZERO;
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? { ...ZERO, milliseconds: raw * 1000 } : undefined;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (text === '') return ZERO;
  if (SECONDS.test(text)) return { ...ZERO, milliseconds: Number(text) * 1000 };
  if (UNITS.test(text)) {
    let milliseconds = 0;
    for (const [, amount, unit] of text.matchAll(UNIT_PART)) milliseconds += Number(amount) * UNIT_MS[unit.toLowerCase() as keyof typeof UNIT_MS];
    return { ...ZERO, milliseconds };
  }
  return parseIsoDuration(text);
}

function parseIsoDuration(text: string): Delay | undefined {
  const parts = ISO_DURATION.exec(text);
  // `P` and `PT` alone, or a `T` with nothing after it, are not durations.
  if (!parts || /^P$|T$/i.test(text)) return undefined;
  const part = (i: number) => (parts[i] === undefined ? 0 : Number(parts[i]));
  const fractionMs = parts[8] === undefined ? 0 : Number(parts[8].padEnd(3, '0'));
  return {
    years: part(1),
    months: part(2),
    days: part(3) * 7 + part(4),
    milliseconds: part(5) * UNIT_MS.h + part(6) * UNIT_MS.m + part(7) * UNIT_MS.s + fractionMs,
  };
}

/** Adds calendar months in UTC, keeping the day of month or clamping it to the month's last day. */
function addMonths(date: Date, months: number): Date {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}

/** The latest a message accepted at `now` may be due: ten years on, by the calendar. */
export function latestSendAt(now: Date): Date {
  return addMonths(now, MAX_DELAY_YEARS * 12);
}

/** When a message delayed by `delay` from `now` is due; undefined past the ten-year limit. */
export function sendAtAfter(delay: Delay, now: Date): Date | undefined {
  const limit = latestSendAt(now);
  // Each part alone must already fit, which also keeps the arithmetic far from overflow.
  if (delay.years > MAX_DELAY_YEARS || delay.months > MAX_DELAY_YEARS * 12) return undefined;
  if (delay.days * UNIT_MS.d > limit.getTime() - now.getTime() || delay.milliseconds > limit.getTime() - now.getTime()) return undefined;
  const calendar = addMonths(now, delay.years * 12 + delay.months);
  const sendAt = new Date(calendar.getTime() + delay.days * UNIT_MS.d + delay.milliseconds);
  return sendAt.getTime() > limit.getTime() ? undefined : sendAt;
}
