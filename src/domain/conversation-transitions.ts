import type { EventType } from './events';

/*
 * A conversation's state machine (docs/conversations.md, "Status and clocks"), written once: what each
 * happening does to a conversation in each state. src/db/conversation-transitions.ts writes the same
 * table as SQL for the statements that must change the row where the message is stored.
 */

export const CONVERSATION_STATUSES = ['open', 'snoozed', 'closed'] as const;
export type ConversationStatusName = (typeof CONVERSATION_STATUSES)[number];
/** `none`: no row yet, the first message of (client, sender) creates it. */
export type ConversationState = 'none' | ConversationStatusName;

export const CONVERSATION_HAPPENINGS = ['text', 'keyword', 'answer', 'snooze', 'close', 'reopen', 'snoozeEnds'] as const;
/**
 * `text` a client's text, `keyword` its STOP, START or HELP, `answer` a message of ours accepted for the
 * client, `snooze` / `close` / `reopen` its owner's requests, `snoozeEnds` the snooze's date come.
 */
export type ConversationHappening = (typeof CONVERSATION_HAPPENINGS)[number];

/** What a transition sets: each field kept, cleared, set (the snooze's date) or started (now, unless already set). */
export interface ConversationTransition {
  status: ConversationStatusName | 'keep';
  snoozedUntil: 'keep' | 'clear' | 'set';
  waitingSince: 'keep' | 'clear' | 'start';
  firstInboundAt: 'keep' | 'start';
  event: EventType | null;
  /** The event only for the client's first text to the conversation (none came before). */
  eventOnFirstText?: true;
}

/** `refused`: a 409; `unchanged`: nothing is written, nothing recorded. A state a happening has no cell for does not meet it (404, or not due). */
export type TransitionCell = ConversationTransition | 'refused' | 'unchanged';

const TEXT: ConversationTransition = { status: 'open', snoozedUntil: 'clear', waitingSince: 'start', firstInboundAt: 'start', event: 'conversation.opened' };
const KEYWORD: ConversationTransition = { status: 'keep', snoozedUntil: 'keep', waitingSince: 'keep', firstInboundAt: 'keep', event: null };
const ANSWER: ConversationTransition = { status: 'keep', snoozedUntil: 'keep', waitingSince: 'clear', firstInboundAt: 'keep', event: null };
const SNOOZE: ConversationTransition = { status: 'snoozed', snoozedUntil: 'set', waitingSince: 'keep', firstInboundAt: 'keep', event: 'conversation.snoozed' };
const CLOSE: ConversationTransition = { status: 'closed', snoozedUntil: 'clear', waitingSince: 'clear', firstInboundAt: 'keep', event: 'conversation.closed' };
const REOPEN: ConversationTransition = { status: 'open', snoozedUntil: 'clear', waitingSince: 'keep', firstInboundAt: 'keep', event: 'conversation.reopened' };

export const CONVERSATION_TRANSITIONS: { readonly [H in ConversationHappening]: Readonly<Partial<Record<ConversationState, TransitionCell>>> } = {
  // A reply always ends a snooze and opens a closed conversation, each `opened`; an open one is `opened`
  // by the client's first text only (one our message began), not by every text after it.
  text: { none: TEXT, open: { ...TEXT, eventOnFirstText: true }, snoozed: TEXT, closed: TEXT },
  // Created open, waiting on nobody: the service answers a keyword itself.
  keyword: { none: { ...KEYWORD, status: 'open' }, open: KEYWORD, snoozed: KEYWORD, closed: KEYWORD },
  // A message of ours neither opens a closed conversation nor ends a snooze.
  answer: { none: { ...ANSWER, status: 'open' }, open: ANSWER, snoozed: ANSWER, closed: ANSWER },
  // Snoozed again, the date moves (the same date: unchanged, see conversationAfter).
  snooze: { open: SNOOZE, snoozed: SNOOZE, closed: 'refused' },
  close: { open: CLOSE, snoozed: CLOSE, closed: 'unchanged' },
  reopen: { open: 'unchanged', snoozed: REOPEN, closed: REOPEN },
  snoozeEnds: { snoozed: REOPEN },
};

/** The fields of a conversation the state machine moves. */
export interface ConversationClocks {
  status: ConversationStatusName;
  snoozedUntil: Date | null;
  waitingSince: Date | null;
  firstInboundAt: Date | null;
}

/** The cell of `happening` for a conversation in `state`; undefined when the happening does not meet it. */
export function conversationTransition(state: ConversationState, happening: ConversationHappening): TransitionCell | undefined {
  return CONVERSATION_TRANSITIONS[happening][state];
}

export type ConversationOutcome = { after: ConversationClocks; event: EventType | null } | 'refused' | 'unchanged' | 'not applicable';

/**
 * What `happening` at `at` makes of the conversation `before` (null: none yet): the table's cell, applied;
 * `until` is a snooze's date. A snooze to the date it has is unchanged; a snooze ends only once its date has come.
 */
export function conversationAfter(before: ConversationClocks | null, happening: ConversationHappening, at: Date, until: Date | null = null): ConversationOutcome {
  const cell = conversationTransition(before?.status ?? 'none', happening);
  if (cell === undefined || typeof cell === 'string') return cell ?? 'not applicable';
  if (happening === 'snooze' && before?.status === 'snoozed' && before.snoozedUntil?.getTime() === until?.getTime()) return 'unchanged';
  if (happening === 'snoozeEnds' && !(before?.snoozedUntil && before.snoozedUntil <= at)) return 'not applicable';
  const field = (value: Date | null | undefined) => value ?? null;
  const after: ConversationClocks = {
    status: cell.status === 'keep' ? before!.status : cell.status,
    snoozedUntil: cell.snoozedUntil === 'keep' ? field(before?.snoozedUntil) : cell.snoozedUntil === 'set' ? until : null,
    waitingSince: cell.waitingSince === 'keep' ? field(before?.waitingSince) : cell.waitingSince === 'start' ? (before?.waitingSince ?? at) : null,
    firstInboundAt: cell.firstInboundAt === 'keep' ? field(before?.firstInboundAt) : (before?.firstInboundAt ?? at),
  };
  return { after, event: cell.eventOnFirstText && before?.firstInboundAt ? null : cell.event };
}
