/*
 * The arithmetic of a rotation, without a database: period k of a schedule covers
 * [startsAt + k·period, startsAt + (k+1)·period) and belongs to agent k mod n. Every boundary is
 * computed from the schedule, never from when a worker happened to wake up.
 */

export interface Schedule {
  agentIds: string[];
  /** As the caller wrote it. */
  period: string;
  periodMs: number;
  /** Periods are counted from here (the schedule's phase). */
  startsAt: Date;
  /** When this schedule took over; periods before it belonged to another schedule or to nobody. */
  effectiveAt: Date;
  notes: string | null;
}

/** A piece of one period: from `start` to the period's end, or to `cutAt` when the schedule is replaced earlier. */
export interface Segment {
  start: Date;
  end: Date;
  /** k: the number of the period counted from `startsAt`. */
  index: number;
  /** Index into `agentIds` of the agent the schedule gives the period to. */
  position: number;
}

/** The period of `schedule` in progress at `t` (not before `startsAt`), from `t` to its end or to `cutAt`. */
export function segmentAt(schedule: Schedule, t: Date, cutAt?: Date | null): Segment {
  const origin = schedule.startsAt.getTime();
  const index = Math.max(0, Math.floor((t.getTime() - origin) / schedule.periodMs));
  const periodEnd = origin + (index + 1) * schedule.periodMs;
  const end = cutAt && cutAt.getTime() < periodEnd ? cutAt.getTime() : periodEnd;
  return { start: t, end: new Date(end), index, position: index % schedule.agentIds.length };
}

/** Where the period in progress at `t` began: the first boundary at or before `t`. */
export function periodStartAt(schedule: Schedule, t: Date): Date {
  const origin = schedule.startsAt.getTime();
  const index = Math.max(0, Math.floor((t.getTime() - origin) / schedule.periodMs));
  return new Date(origin + index * schedule.periodMs);
}

/**
 * When a new schedule takes over: at the end of the period in progress (whoever's it is), or now with
 * `applyNow` or when no period is in progress; never before its own `startsAt`.
 */
export function takeOverAt(input: { now: Date; periodInProgressUntil: Date | null; applyNow: boolean; startsAt: Date | null }): Date {
  const { now, periodInProgressUntil, applyNow, startsAt } = input;
  const base = !applyNow && periodInProgressUntil && periodInProgressUntil > now ? periodInProgressUntil : now;
  return startsAt && startsAt > base ? startsAt : base;
}

/** The rotation's schedules as the row holds them: the one in force and a replacement waiting for its time. */
export interface Plan {
  schedule: Schedule;
  pending: Schedule | null;
  coveredUntil: Date | null;
}

/** Where the next period starts, under which schedule, and whose it is by that schedule. */
export function nextChange(plan: Plan): { at: Date; schedule: Schedule; replaced: boolean; segment: Segment } {
  const { schedule, pending, coveredUntil } = plan;
  const at = coveredUntil && coveredUntil > schedule.effectiveAt ? coveredUntil : schedule.effectiveAt;
  if (pending && pending.effectiveAt <= at) return { at, schedule: pending, replaced: true, segment: segmentAt(pending, at) };
  return { at, schedule, replaced: false, segment: segmentAt(schedule, at, pending?.effectiveAt) };
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
/** Ten years of 365.25 days, rounded up to a whole day. */
export const MAX_PERIOD_MS = 3653 * DAY_MS;
export const DEFAULT_MIN_PERIOD_MS = MINUTE_MS;
