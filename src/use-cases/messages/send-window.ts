/*
 * Quiet hours: the hours of the day, on the wall clock of a time zone, in which a message may go out.
 * Only Intl's time zone data is used; the zone's offset is read at each instant, so daylight-saving
 * changes (a skipped or a repeated hour) fall where they do in that zone.
 */

const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;
const DAY = 24 * HOUR;
/** A window opens at least once a day; three days cover a day shortened or lengthened by a change. */
const HORIZON = 3 * DAY;
/** A zone changes its offset at most once in this long (real zones: months apart). */
const SAMPLE = 6 * HOUR;

/** `from` inclusive, `to` exclusive, in milliseconds since local midnight; `from > to` spans midnight. */
export interface DailyWindow {
  from: number;
  to: number;
}

const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** `HH:MM` (24 h, 00:00 to 23:59) as milliseconds since midnight, or undefined. */
export function clockTime(text: unknown): number | undefined {
  const match = typeof text === 'string' ? CLOCK.exec(text) : null;
  return match ? (Number(match[1]) * 60 + Number(match[2])) * 60 * SECOND : undefined;
}

const mod = (n: number, m: number) => ((n % m) + m) % m;

function isInside(window: DailyWindow, timeOfDay: number): boolean {
  return window.from < window.to
    ? window.from <= timeOfDay && timeOfDay < window.to
    : timeOfDay >= window.from || timeOfDay < window.to;
}

/** The zone's offset from UTC at `at`, in milliseconds (wall clock minus UTC). */
function offsetAt(format: Intl.DateTimeFormat, at: number): number {
  const whole = at - mod(at, SECOND);
  const part = (parts: Intl.DateTimeFormatPart[], type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)!.value);
  const parts = format.formatToParts(whole);
  const wall = Date.UTC(part(parts, 'year'), part(parts, 'month') - 1, part(parts, 'day'), part(parts, 'hour'), part(parts, 'minute'), part(parts, 'second'));
  return wall - whole;
}

/** The instants in [start, end) at which the zone's offset changes, to the second. */
function offsetChanges(format: Intl.DateTimeFormat, start: number, end: number): number[] {
  const changes: number[] = [];
  for (let at = start; at < end; at += SAMPLE) {
    const next = Math.min(at + SAMPLE, end);
    const before = offsetAt(format, at);
    if (offsetAt(format, next) === before) continue;
    // Whole seconds: `low` has the old offset, `high` the new one.
    let low = Math.floor(at / SECOND);
    let high = Math.ceil(next / SECOND);
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetAt(format, middle * SECOND) === before) low = middle;
      else high = middle;
    }
    changes.push(high * SECOND);
  }
  return changes;
}

/**
 * The first instant at or after `sendAt` whose wall-clock time in `timeZone` is inside the window, or
 * null when `sendAt` already is. Between two offset changes the wall clock runs with UTC, so the window
 * opens either where the clock reads `from`, or where an offset change makes it jump into the window:
 * on a spring-forward day a `from` the clock skips (02:30) opens at the change (03:00); on a fall-back
 * day a window that the first pass of the repeated hour has left opens again in the second.
 */
export function windowOpening(sendAt: Date, window: DailyWindow, timeZone: string): Date | null {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const start = sendAt.getTime();
  const end = start + HORIZON;
  let from = start;
  for (const until of [...offsetChanges(format, start, end), end]) {
    const timeOfDay = mod(from + offsetAt(format, from), DAY);
    if (isInside(window, timeOfDay)) return from === start ? null : new Date(from);
    const opens = from + mod(window.from - timeOfDay, DAY);
    if (opens < until) return new Date(opens);
    from = until;
  }
  throw new Error(`The send window never opens within three days in ${timeZone}`);
}
