import { conversationAfter } from '../../src/domain/conversation-transitions';
import { FIRST, WAITING, SNOOZED, AT, UNTIL, STATES } from './states';

/*
 * A conversation's state machine as a table (src/domain/conversation-transitions.ts): each happening
 * from each state, no database. test/conversations/transitions-sql.test.ts proves the SQL says the same.
 */

const BEFORE = STATES;

const after = (status: string, snoozedUntil: Date | null, waitingSince: Date | null, firstInboundAt: Date | null) => ({ status, snoozedUntil, waitingSince, firstInboundAt });

test.each([
  // A client's text: open from any status (a snooze ends), waiting unless something already waits.
  ['text', 'none', { after: after('open', null, AT, AT), event: 'conversation.opened' }],
  // Opened by the client's first text only: one our message began is, one the client texted before is not.
  ['text', 'open, ours only', { after: after('open', null, AT, AT), event: 'conversation.opened' }],
  ['text', 'open, waiting', { after: after('open', null, WAITING, FIRST), event: null }],
  ['text', 'open, answered', { after: after('open', null, AT, FIRST), event: null }],
  ['text', 'snoozed', { after: after('open', null, WAITING, FIRST), event: 'conversation.opened' }],
  ['text', 'closed', { after: after('open', null, AT, FIRST), event: 'conversation.opened' }],
  // STOP, START, HELP: in the thread, but no status and no clock.
  ['keyword', 'none', { after: after('open', null, null, null), event: null }],
  ['keyword', 'open, waiting', { after: after('open', null, WAITING, FIRST), event: null }],
  ['keyword', 'snoozed', { after: after('snoozed', SNOOZED, WAITING, FIRST), event: null }],
  ['keyword', 'closed', { after: after('closed', null, null, FIRST), event: null }],
  // Our message accepted: nothing waits; a closed conversation stays closed, a snooze goes on.
  ['answer', 'none', { after: after('open', null, null, null), event: null }],
  ['answer', 'open, waiting', { after: after('open', null, null, FIRST), event: null }],
  ['answer', 'snoozed', { after: after('snoozed', SNOOZED, null, FIRST), event: null }],
  ['answer', 'closed', { after: after('closed', null, null, FIRST), event: null }],
  // The owner's requests.
  ['snooze', 'none', 'not applicable'],
  ['snooze', 'open, waiting', { after: after('snoozed', UNTIL, WAITING, FIRST), event: 'conversation.snoozed' }],
  ['snooze', 'snoozed', { after: after('snoozed', UNTIL, WAITING, FIRST), event: 'conversation.snoozed' }],
  ['snooze', 'closed', 'refused'],
  ['close', 'none', 'not applicable'],
  ['close', 'open, waiting', { after: after('closed', null, null, FIRST), event: 'conversation.closed' }],
  ['close', 'snoozed', { after: after('closed', null, null, FIRST), event: 'conversation.closed' }],
  ['close', 'closed', 'unchanged'],
  ['reopen', 'none', 'not applicable'],
  ['reopen', 'open, waiting', 'unchanged'],
  ['reopen', 'snoozed', { after: after('open', null, WAITING, FIRST), event: 'conversation.reopened' }],
  ['reopen', 'closed', { after: after('open', null, null, FIRST), event: 'conversation.reopened' }],
  // The snooze's date come: open again, its waiting kept.
  ['snoozeEnds', 'none', 'not applicable'],
  ['snoozeEnds', 'open, waiting', 'not applicable'],
  ['snoozeEnds', 'snoozed', { after: after('open', null, WAITING, FIRST), event: 'conversation.reopened' }],
  ['snoozeEnds', 'closed', 'not applicable'],
] as const)('%s on a conversation %s', (happening, state, outcome) => {
  expect(conversationAfter(BEFORE[state], happening, AT, happening === 'snooze' ? UNTIL : null)).toEqual(outcome);
});

test('a snooze to the date it has already changes nothing', () => {
  expect(conversationAfter(BEFORE.snoozed, 'snooze', AT, SNOOZED)).toBe('unchanged');
});

test('a snooze whose date has not come yet does not end', () => {
  expect(conversationAfter({ ...BEFORE.snoozed!, snoozedUntil: UNTIL }, 'snoozeEnds', AT)).toBe('not applicable');
});
