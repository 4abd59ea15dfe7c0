import type { ConversationStatusName } from './conversation-transitions';
import { holdsAt } from './assignment-holds';

/*
 * Which conversations hold a clock (docs/conversations.md, "Status and clocks"), written once: a snoozed
 * one until its date; an open one waiting for an answer, its waiting period not yet reported overdue,
 * while the policy of its client's latest routing decision gives a reply clock, counted in the working
 * hours of the client's first holder. src/db/conversation-clocks.ts applies it to the client's rows, and
 * says it in SQL for the reconciler's set-based scan.
 */

/** A routing policy's reply clock: `next_response_within` (an ISO 8601 duration), in working time unless `working_hours` is false. */
export interface ReplyClock {
  within: string;
  workingHours: boolean;
}

/** The settings that give it, as a policy stores them. */
export const REPLY_CLOCK_SETTING = 'next_response_within';
export const WORKING_HOURS_SETTING = 'working_hours';

/** The reply clock of a policy's stored settings; null when they give none (absent, null, not a duration). */
export function replyClockOf(settings: unknown): ReplyClock | null {
  const stored = (settings ?? {}) as Record<string, unknown>;
  const within = stored[REPLY_CLOCK_SETTING];
  if (typeof within !== 'string' || !within.startsWith('P')) return null;
  const workingHours = stored[WORKING_HOURS_SETTING];
  return { within, workingHours: typeof workingHours === 'boolean' ? workingHours : true };
}

/** What of a conversation says whether it holds a clock. */
export interface ConversationWait {
  status: ConversationStatusName;
  waitingSince: Date | null;
  /** The waiting period already reported overdue (`waiting_since` then). */
  overdueFor: Date | null;
}

/** Open and waiting for an answer, this waiting period not reported overdue yet. */
export const awaitsAnswer = (c: ConversationWait): boolean =>
  c.status === 'open' && c.waitingSince !== null && c.overdueFor?.getTime() !== c.waitingSince.getTime();

/** The clock a conversation holds under its client's reply clock (null: none): its snooze, its reply clock, or none. */
export function conversationClock(c: ConversationWait, replyClock: ReplyClock | null): 'snooze' | 'reply' | null {
  if (c.status === 'snoozed') return 'snooze';
  return replyClock !== null && awaitsAnswer(c) ? 'reply' : null;
}

/** The client's latest routing decision: the last decided, the greatest id among those decided at once. */
export function latestDecision<D extends { decidedAt: Date; id: string }>(decisions: readonly D[]): D | null {
  const later = (a: D, b: D) => a.decidedAt.getTime() > b.decidedAt.getTime() || (a.decidedAt.getTime() === b.decidedAt.getTime() && a.id > b.id);
  return decisions.reduce<D | null>((latest, d) => (latest === null || later(d, latest) ? d : latest), null);
}

/** Whose working hours a reply clock counts in: the client's first holder at `now` (the earliest active assignment still running), or nobody. */
export function clockHolder<A extends { status: string; dtUntil: Date; createdAt: Date; id: string }>(assignments: readonly A[], now: Date): A | null {
  const holding = assignments.filter((a) => holdsAt(a, now));
  const earlier = (a: A, b: A) => a.createdAt.getTime() < b.createdAt.getTime() || (a.createdAt.getTime() === b.createdAt.getTime() && a.id < b.id);
  return holding.reduce<A | null>((first, a) => (first === null || earlier(a, first) ? a : first), null);
}
