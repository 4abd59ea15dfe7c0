import type { FirstResponseClock } from '../../domain';

/* The client's run's view of its routing decisions' first-response clocks (src/workflows/assignments/client-ownership.ts). */

/** A timer ends a little after the deadline, so the step finds it passed. */
const PAST_DEADLINE_MS = 250;
/** With no working time ahead for the owner, the clock looks again this often (its hours may change). */
export const NO_HOURS_RECHECK_MS = 60 * 60 * 1000;
/** A database clock slightly behind the worker's must not turn the loop into a busy one. */
const MIN_RECHECK_MS = 1000;

export interface FirstResponseWake extends FirstResponseClock {
  /** When the run steps the clock next, in the workflow's time. */
  wakeAt: number;
}

/** When to step each clock the last step left running, as of `nowMs`. */
export function firstResponseWakes(clocks: FirstResponseClock[], nowMs: number): FirstResponseWake[] {
  return clocks.map((clock) => {
    if (!clock.dueAt) return { ...clock, wakeAt: nowMs + NO_HOURS_RECHECK_MS };
    const wakeAt = Date.parse(clock.dueAt) + PAST_DEADLINE_MS;
    return { ...clock, wakeAt: wakeAt > nowMs ? wakeAt : nowMs + MIN_RECHECK_MS };
  });
}

/** "decision … : the owner must answer by …", for the run's current details. */
export function describeFirstResponses(wakes: FirstResponseWake[]): string[] {
  return wakes.map((w) => `decision ${w.decisionId}: the owner must answer by ${w.dueAt ?? 'its next working hours'}`);
}
