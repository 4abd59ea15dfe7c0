import type { ConversationWait, ReplyClock } from '../../src/domain/reply-clock';

/* Which conversations hold a clock, one row per case: the rules' unit test and the SQL's test read the same tables. */

export const WAITING = new Date('2026-01-02T00:00:00.000Z');
export const REPORTED = new Date('2026-01-01T00:00:00.000Z');
export const NOW = new Date('2026-02-01T00:00:00.000Z');

/** A policy's stored settings, and the reply clock they give. */
export const SETTINGS: readonly (readonly [string, Record<string, unknown> | null, ReplyClock | null])[] = [
  ['a reply clock in working hours', { next_response_within: 'PT1H', working_hours: true }, { within: 'PT1H', workingHours: true }],
  ['a reply clock all the time', { next_response_within: 'P1D', working_hours: false }, { within: 'P1D', workingHours: false }],
  ['working_hours absent: in working hours', { next_response_within: 'PT30M' }, { within: 'PT30M', workingHours: true }],
  ['next_response_within null', { next_response_within: null, working_hours: true }, null],
  ['next_response_within absent', { working_hours: true }, null],
  ['not a duration', { next_response_within: 'soon' }, null],
];

/** A conversation, and the clock it holds with a reply clock and without one. */
export const WAITS: readonly (readonly [string, ConversationWait, 'snooze' | 'reply' | null, 'snooze' | null])[] = [
  ['open, waiting', { status: 'open', waitingSince: WAITING, overdueFor: null }, 'reply', null],
  ['open, waiting, reported overdue', { status: 'open', waitingSince: WAITING, overdueFor: WAITING }, null, null],
  ['open, waiting again since a report', { status: 'open', waitingSince: WAITING, overdueFor: REPORTED }, 'reply', null],
  ['open, answered', { status: 'open', waitingSince: null, overdueFor: REPORTED }, null, null],
  ['snoozed while waiting', { status: 'snoozed', waitingSince: WAITING, overdueFor: null }, 'snooze', 'snooze'],
  ['closed', { status: 'closed', waitingSince: null, overdueFor: null }, null, null],
];

/** The client's routing decisions (oldest id first), whether each one's policy gives a reply clock, and which is the latest. */
export const DECISIONS: readonly (readonly [string, readonly { decidedAt: Date; clock: boolean }[], number | null])[] = [
  ['none', [], null],
  ['one', [{ decidedAt: REPORTED, clock: true }], 0],
  ['a later one without a clock', [{ decidedAt: REPORTED, clock: true }, { decidedAt: WAITING, clock: false }], 1],
  ['an earlier one without a clock', [{ decidedAt: WAITING, clock: true }, { decidedAt: REPORTED, clock: false }], 0],
  ['decided at once: the greater id', [{ decidedAt: WAITING, clock: false }, { decidedAt: WAITING, clock: true }], 1],
];

const hours = (from: string) => ({ mon: [[from, '17:00']] });
const LATER = new Date(NOW.getTime() + 86_400_000);

/** The client's assignments (lowest id first), and which one's hours the clock counts in. */
export const HOLDERS: readonly (readonly [string, readonly { status: 'active' | 'expired'; dtUntil: Date; createdAt: Date; hours: object | null }[], number | null])[] = [
  ['nobody', [], null],
  ['one holder', [{ status: 'active', dtUntil: LATER, createdAt: REPORTED, hours: hours('09:00') }], 0],
  ['the earliest holder', [{ status: 'active', dtUntil: LATER, createdAt: WAITING, hours: hours('09:00') }, { status: 'active', dtUntil: LATER, createdAt: REPORTED, hours: hours('10:00') }], 1],
  ['created at once: the lower id', [{ status: 'active', dtUntil: LATER, createdAt: WAITING, hours: hours('09:00') }, { status: 'active', dtUntil: LATER, createdAt: WAITING, hours: hours('10:00') }], 0],
  ['past its dt_until, not yet expired', [{ status: 'active', dtUntil: NOW, createdAt: REPORTED, hours: hours('09:00') }, { status: 'active', dtUntil: LATER, createdAt: WAITING, hours: null }], 1],
  ['expired', [{ status: 'expired', dtUntil: LATER, createdAt: REPORTED, hours: hours('09:00') }], null],
];
