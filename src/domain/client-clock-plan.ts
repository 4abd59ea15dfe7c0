import type { AssignmentClock, ClockKind, ConversationClock, FirstResponseClock, RotationClock } from './client-run';
import { nextSleepMs } from './timer-chunks';

/*
 * The client's run's clock plan (src/workflows/assignments/client-ownership.ts): given what the run holds, the one
 * thing it does next. The run carries the plan out (local activities, timers, continue-as-new) and asks
 * again; the plan has no effect of its own, so each rule here is a row of test/assignments/client-clock-plan.test.ts.
 */

/** A clock the run holds, with when the run wakes for it (in the workflow's time). */
export type Wake<T> = T & { wakeAt: number };

export interface ClockView {
  /** The kinds of rows to re-read before the run sleeps again. */
  stale: ReadonlySet<ClockKind>;
  /** A batch of assign requests is being recorded: it reads the assignments itself once it has committed. */
  recording: boolean;
  nowMs: number;
  /** The active assignments, the earliest `dt_until` first. */
  assignments: readonly AssignmentClock[];
  firstResponses: readonly Wake<FirstResponseClock>[];
  rotations: readonly Wake<RotationClock>[];
  /** The earliest first. */
  conversations: readonly Wake<ConversationClock>[];
  /** `targetVersionChanged`: a newer Worker Deployment Version is the run's target (the next run starts there). */
  history: { length: number; limit: number; continueAsNewSuggested: boolean; targetVersionChanged?: boolean };
  /** Taken off a timer chunk that does not reach its deadline (drawn once per run). */
  jitterMs: number;
}

export type ClockStep =
  /** Several kinds are stale (every kind when a run starts): one read of them all, the assignments last. */
  | { step: 'readKinds'; kinds: ClockKind[] }
  | { step: 'advanceRotations' }
  /** Only the assignments are stale and a batch is being recorded: its read after its commit stands for a second one. */
  | { step: 'awaitRecording' }
  | { step: 'loadAssignments' }
  | { step: 'stepFirstResponses' }
  | { step: 'stepConversations' }
  | { step: 'expireAssignments' }
  /** No clock left: the run ends once no handler is running. */
  | { step: 'idle' }
  /** The history is long, or a newer version is the run's target: the next run re-reads the rows. */
  | { step: 'continueAsNew' }
  /** One timer, until the earliest clock or the end of a chunk short of it. */
  | { step: 'sleep'; sleepMs: number; wakeAt: string; summary: string };

/**
 * `rowsRead`: no kind of rows is stale, so the timer is set from the rows as read (an update's clocks
 * included); a change that comes later wakes it again.
 */
export type ClockPlan = ClockStep & { rowsRead: boolean };

/** Whether any of `wakes` is due at `nowMs`. */
export const anyDue = (wakes: readonly { wakeAt: number }[], nowMs: number): boolean => wakes.some((w) => w.wakeAt <= nowMs);

/** Whether the earliest assignment's `dt_until` has come at `nowMs`. */
export const assignmentDue = (assignments: readonly AssignmentClock[], nowMs: number): boolean =>
  assignments.length > 0 && Date.parse(assignments[0].dtUntil) <= nowMs;

/** The next thing the run does. */
export function planClocks(view: ClockView): ClockPlan {
  const refresh = refreshStep(view);
  if (refresh) return { ...refresh, rowsRead: false };
  return { ...dueOrWait(view), rowsRead: true };
}

/** Stale rows come first, in this order: several kinds at once, the rotations, the assignments, the first responses, the conversations. */
function refreshStep({ stale, recording }: ClockView): ClockStep | null {
  if (stale.size > 1) return { step: 'readKinds', kinds: [...stale] };
  if (stale.has('rotations')) return { step: 'advanceRotations' };
  if (stale.has('assignments')) return recording ? { step: 'awaitRecording' } : { step: 'loadAssignments' };
  if (stale.has('firstResponses')) return { step: 'stepFirstResponses' };
  if (stale.has('conversations')) return { step: 'stepConversations' };
  return null;
}

/** With every kind read: a clock due now (at a boundary the rotation steps before the expiry), or a wait for the earliest. */
function dueOrWait(view: ClockView): ClockStep {
  const { nowMs } = view;
  if (anyDue(view.rotations, nowMs)) return { step: 'advanceRotations' };
  if (assignmentDue(view.assignments, nowMs)) return { step: 'expireAssignments' };
  if (anyDue(view.firstResponses, nowMs)) return { step: 'stepFirstResponses' };
  if (anyDue(view.conversations, nowMs)) return { step: 'stepConversations' };
  const next = earliestClock(view);
  if (!next) return { step: 'idle' };
  const { history } = view;
  if (history.continueAsNewSuggested || history.length >= history.limit || history.targetVersionChanged) return { step: 'continueAsNew' };
  const { sleepMs, reachesDeadline } = nextSleepMs(next.at, nowMs, view.jitterMs);
  const wakeAt = new Date(nowMs + sleepMs).toISOString();
  // At the end of a chunk short of the deadline the run simply plans again.
  return { step: 'sleep', sleepMs, wakeAt, summary: reachesDeadline ? next.summary : `Wait one chunk, until ${wakeAt}` };
}

/** The clock the run's timer is set for: the earliest of every kind (the timer's summary names it); none when the client holds none. */
export function earliestClock(view: Pick<ClockView, 'assignments' | 'firstResponses' | 'rotations' | 'conversations'>): { at: number; summary: string } | null {
  const candidates = [
    ...view.assignments.slice(0, 1).map((c) => ({ at: Date.parse(c.dtUntil), summary: `Expire ${c.agentId} at dt_until ${c.dtUntil}` })),
    ...view.firstResponses.map((r) => ({ at: r.wakeAt, summary: r.dueAt ? `First response of decision ${r.decisionId} due at ${r.dueAt}` : `Decision ${r.decisionId}: owner has no working time ahead` })),
    ...view.rotations.map((r) => ({ at: r.wakeAt, summary: `Rotation's next period at ${r.nextChangeAt}` })),
    ...view.conversations.slice(0, 1).map((c) => ({ at: c.wakeAt, summary: c.reason === 'snooze' ? `Conversation ${c.conversationId} snoozed until ${c.dueAt}` : `Conversation ${c.conversationId} due for an answer at ${c.dueAt}` })),
  ];
  return candidates.reduce<{ at: number; summary: string } | null>((earliest, c) => (!earliest || c.at < earliest.at ? c : earliest), null);
}
