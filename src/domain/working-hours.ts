/*
 * An agent's working hours: intervals of local wall-clock time per weekday, read in the agent's IANA
 * time zone, so 09:00 stays 09:00 on both sides of a daylight-saving change. Pure arithmetic over
 * `Intl`, shared by the routing rows and the views.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `[["09:00","12:00"],["13:00","17:00"]]` per day; a day absent or empty is not worked. `"24:00"` ends a day. */
export type WorkingHours = Partial<Record<Weekday, [string, string][]>>;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', weekday: 'short', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(timeZone, f);
  }
  return f;
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  weekday: Weekday;
  /** Minutes since local midnight. */
  minutes: number;
  seconds: number;
}

/** The wall clock in `timeZone` at `at`. */
export function localTime(at: Date, timeZone: string): LocalTime {
  const parts = Object.fromEntries(formatter(timeZone).formatToParts(at).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: parts.weekday.toLowerCase().slice(0, 3) as Weekday,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
    seconds: Number(parts.second),
  };
}

/** "09:30" → 570; "24:00" → 1440. */
export function minutesOf(clock: string): number {
  const [h, m] = clock.split(':').map(Number);
  return h * 60 + m;
}

/** Whether `at` falls inside one of the day's intervals, [from, to), on the agent's wall clock. No hours: always. */
export function isWithinWorkingHours(hours: WorkingHours | null, timeZone: string | null, at: Date): boolean {
  if (!hours) return true;
  const local = localTime(at, timeZone ?? 'UTC');
  return (hours[local.weekday] ?? []).some(([from, to]) => local.minutes >= minutesOf(from) && local.minutes < minutesOf(to));
}

/** The UTC instant of a wall-clock time in `timeZone`; a time skipped by a DST change moves forward by the gap's length (02:30 → 03:30), as java.time does. */
export function instantOf(year: number, month: number, day: number, minutes: number, timeZone: string): Date {
  const wall = Date.UTC(year, month - 1, day, 0, minutes);
  const offsetAt = (t: number) => {
    const l = localTime(new Date(t), timeZone);
    return Date.UTC(l.year, l.month - 1, l.day, 0, l.minutes, l.seconds) - Math.floor(t / 1000) * 1000;
  };
  const first = wall - offsetAt(wall);
  const second = wall - offsetAt(first);
  if (first === second) return new Date(first);
  // In a gap neither guess reads back as the wall time asked for: the later one is that time moved past the gap.
  const l = localTime(new Date(second), timeZone);
  return Date.UTC(l.year, l.month - 1, l.day, 0, l.minutes) === wall ? new Date(second) : new Date(Math.max(first, second));
}

/** The next start of an interval after `after` (within eight days), or null when the hours hold none. */
export function nextShiftStart(hours: WorkingHours | null, timeZone: string | null, after: Date): Date | null {
  if (!hours) return null;
  const zone = timeZone ?? 'UTC';
  const today = localTime(after, zone);
  let best: number | null = null;
  for (let d = 0; d <= 8; d++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + d));
    const weekday = WEEKDAYS[(date.getUTCDay() + 6) % 7];
    for (const [from] of hours[weekday] ?? []) {
      const start = instantOf(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), minutesOf(from), zone).getTime();
      if (start > after.getTime() && (best === null || start < best)) best = start;
    }
    if (best !== null) break;
  }
  return best === null ? null : new Date(best);
}

/** The end of the interval `at` falls in, or null when `at` is outside the hours. */
function currentShiftEnd(hours: WorkingHours, zone: string, at: Date): Date | null {
  const local = localTime(at, zone);
  const interval = (hours[local.weekday] ?? []).find(([from, to]) => local.minutes >= minutesOf(from) && local.minutes < minutesOf(to));
  return interval ? instantOf(local.year, local.month, local.day, minutesOf(interval[1]), zone) : null;
}

/**
 * When `ms` of working time will have passed since `from`: the clock runs only inside the hours (no
 * hours: always). Null when the hours hold no time at all.
 */
export function addWorkingTime(hours: WorkingHours | null, timeZone: string | null, from: Date, ms: number): Date | null {
  if (!hours) return new Date(from.getTime() + ms);
  const zone = timeZone ?? 'UTC';
  let at = from;
  let left = ms;
  // Each step crosses one interval or one gap; a year of weekly shifts is well within the bound.
  for (let step = 0; step < 2000; step++) {
    const end = currentShiftEnd(hours, zone, at);
    if (end) {
      if (end.getTime() - at.getTime() >= left) return new Date(at.getTime() + left);
      left -= end.getTime() - at.getTime();
      at = end;
    } else {
      const next = nextShiftStart(hours, zone, at);
      if (!next) return null;
      at = next;
    }
  }
  return null;
}
