import type { SnoozeClock } from '../domain';

/* The client's run's view of its conversations' snoozes (src/workflows/client-ownership.ts). */

/** A timer ends a little after the snooze, so the step finds it ended. */
const PAST_SNOOZE_MS = 250;
/** A database clock slightly behind the worker's must not turn the loop into a busy one. */
const MIN_RECHECK_MS = 1000;

export interface SnoozeWake extends SnoozeClock {
  /** When the run steps the conversations next, in the workflow's time. */
  wakeAt: number;
}

/** When to step each snooze the last step left running, as of `nowMs`. */
export function snoozeWakes(snoozes: SnoozeClock[], nowMs: number): SnoozeWake[] {
  return snoozes.map((snooze) => {
    const wakeAt = Date.parse(snooze.until) + PAST_SNOOZE_MS;
    return { ...snooze, wakeAt: wakeAt > nowMs ? wakeAt : nowMs + MIN_RECHECK_MS };
  });
}

/** "conversation … snoozed until …", for the run's current details. */
export function describeSnoozes(wakes: SnoozeWake[]): string[] {
  return wakes.map((w) => `conversation ${w.conversationId} snoozed until ${w.until}`);
}
