import type { ConversationClock } from '../../domain';

/* The client's run's view of its conversations' clocks (src/workflows/assignments/client-ownership.ts). */

/** A timer ends a little after the clock's date, so the step finds it due. */
const PAST_DUE_MS = 250;
/** With no working time ahead for the holder, a reply clock looks again this often (its hours may change). */
const NO_HOURS_RECHECK_MS = 60 * 60 * 1000;
/** A database clock slightly behind the worker's must not turn the loop into a busy one. */
const MIN_RECHECK_MS = 1000;

export interface ConversationWake extends ConversationClock {
  /** When the run steps the conversations next, in the workflow's time. */
  wakeAt: number;
}

/** When to step each clock the last step left running, as of `nowMs`; the earliest first. */
export function conversationWakes(clocks: ConversationClock[], nowMs: number): ConversationWake[] {
  return clocks
    .map((clock) => {
      if (!clock.dueAt) return { ...clock, wakeAt: nowMs + NO_HOURS_RECHECK_MS };
      const wakeAt = Date.parse(clock.dueAt) + PAST_DUE_MS;
      return { ...clock, wakeAt: wakeAt > nowMs ? wakeAt : nowMs + MIN_RECHECK_MS };
    })
    .sort((a, b) => a.wakeAt - b.wakeAt);
}

/** "conversation … snoozed until …" / "… must be answered by …", for the run's current details. */
export function describeConversations(wakes: ConversationWake[]): string[] {
  return wakes.map((w) =>
    w.reason === 'snooze' ? `conversation ${w.conversationId} snoozed until ${w.dueAt}` : `conversation ${w.conversationId} must be answered by ${w.dueAt ?? 'its holder\'s next working hours'}`,
  );
}
