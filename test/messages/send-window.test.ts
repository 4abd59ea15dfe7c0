import { clockTime, windowOpening } from '../../src/use-cases/messages/send-window';

/*
 * Quiet hours: when a message due at `send_at` may go out, on the wall clock of a zone. 2026's changes:
 * New York springs forward on 8 March (02:00 EST → 03:00 EDT) and falls back on 1 November (02:00 EDT →
 * 01:00 EST); London on 29 March (01:00 GMT → 02:00 BST) and 25 October (02:00 BST → 01:00 GMT).
 */

const window = (from: string, to: string) => ({ from: clockTime(from)!, to: clockTime(to)! });
const opening = (sendAt: string, from: string, to: string, zone: string) => windowOpening(new Date(sendAt), window(from, to), zone)?.toISOString() ?? null;

test.each<[string, string, string, string, string, string | null]>([
  // [case, send_at, from, to, zone, deferred until]
  ['inside the window: not deferred', '2026-06-10T16:00:00.000Z', '08:00', '21:00', 'America/New_York', null],
  ['at `from` exactly: inside', '2026-06-10T12:00:00.000Z', '08:00', '21:00', 'America/New_York', null],
  ['at `to` exactly: outside, the next morning', '2026-06-11T01:00:00.000Z', '08:00', '21:00', 'America/New_York', '2026-06-11T12:00:00.000Z'],
  ['late evening (EDT): next 08:00 EDT', '2026-06-10T01:30:00.000Z', '08:00', '21:00', 'America/New_York', '2026-06-10T12:00:00.000Z'],
  ['early morning the same day (EST)', '2026-01-15T10:00:00.000Z', '08:00', '21:00', 'America/New_York', '2026-01-15T13:00:00.000Z'],
  ['one half second before the window opens', '2026-06-10T11:59:59.500Z', '08:00', '21:00', 'America/New_York', '2026-06-10T12:00:00.000Z'],
  // New York, spring forward
  ['evening before spring-forward: 08:00 is already EDT', '2026-03-08T02:30:00.000Z', '08:00', '21:00', 'America/New_York', '2026-03-08T12:00:00.000Z'],
  ['a `from` the clock skips (02:30) opens when the clock jumps to 03:00', '2026-03-08T05:00:00.000Z', '02:30', '05:00', 'America/New_York', '2026-03-08T07:00:00.000Z'],
  ['a window wholly inside the skipped hour opens the next day', '2026-03-08T05:00:00.000Z', '02:10', '02:40', 'America/New_York', '2026-03-09T06:10:00.000Z'],
  // New York, fall back
  ['evening before fall-back: 08:00 is EST', '2026-11-01T01:30:00.000Z', '08:00', '21:00', 'America/New_York', '2026-11-01T13:00:00.000Z'],
  ['an ambiguous `from` (01:30) opens at its first pass (EDT)', '2026-11-01T04:00:00.000Z', '01:30', '01:45', 'America/New_York', '2026-11-01T05:30:00.000Z'],
  ['after the first pass, the repeated hour opens it again (01:30 EST)', '2026-11-01T05:50:00.000Z', '01:30', '01:45', 'America/New_York', '2026-11-01T06:30:00.000Z'],
  ['the clock falling back into the window opens it at the change', '2026-11-01T05:30:00.000Z', '00:50', '01:20', 'America/New_York', '2026-11-01T06:00:00.000Z'],
  ['inside during the repeated hour (01:10 EST)', '2026-11-01T06:10:00.000Z', '01:00', '01:20', 'America/New_York', null],
  // London
  ['London, night before spring-forward: 08:00 BST', '2026-03-28T22:00:00.000Z', '08:00', '21:00', 'Europe/London', '2026-03-29T07:00:00.000Z'],
  ['London, a skipped 01:30 opens at 02:00 BST', '2026-03-29T00:10:00.000Z', '01:30', '06:00', 'Europe/London', '2026-03-29T01:00:00.000Z'],
  ['London, night before fall-back: 08:00 GMT', '2026-10-24T21:00:00.000Z', '08:00', '21:00', 'Europe/London', '2026-10-25T08:00:00.000Z'],
  ['London in summer', '2026-07-01T05:00:00.000Z', '09:00', '17:30', 'Europe/London', '2026-07-01T08:00:00.000Z'],
  // Half-hour zone
  ['Kolkata (+05:30), after hours: next 09:00 IST', '2026-06-10T13:00:00.000Z', '09:00', '18:00', 'Asia/Kolkata', '2026-06-11T03:30:00.000Z'],
  ['Kolkata, inside', '2026-06-10T03:30:00.000Z', '09:00', '18:00', 'Asia/Kolkata', null],
  ['Kathmandu (+05:45)', '2026-06-10T00:00:00.000Z', '08:00', '20:00', 'Asia/Kathmandu', '2026-06-10T02:15:00.000Z'],
  // Across midnight
  ['an overnight window (21:00–08:00), midday: tonight at 21:00', '2026-06-10T12:00:00.000Z', '21:00', '08:00', 'UTC', '2026-06-10T21:00:00.000Z'],
  ['an overnight window, before midnight: inside', '2026-06-10T23:00:00.000Z', '21:00', '08:00', 'UTC', null],
  ['an overnight window, after midnight: inside', '2026-06-10T07:59:00.000Z', '21:00', '08:00', 'UTC', null],
  ['an overnight window at its `to`: outside', '2026-06-10T08:00:00.000Z', '21:00', '08:00', 'UTC', '2026-06-10T21:00:00.000Z'],
  ['a zone west of UTC across the UTC date line', '2026-06-10T23:00:00.000Z', '20:00', '22:00', 'America/Los_Angeles', '2026-06-11T03:00:00.000Z'],
])('%s', (_name, sendAt, from, to, zone, expected) => {
  expect(opening(sendAt, from, to, zone)).toBe(expected);
});

test('the zone is read with its aliases and in any case', () => {
  expect(opening('2026-06-10T01:30:00.000Z', '08:00', '21:00', 'us/eastern')).toBe('2026-06-10T12:00:00.000Z');
});

test.each([
  ['00:00', 0],
  ['08:00', 8 * 3600_000],
  ['23:59', (23 * 60 + 59) * 60_000],
])('clock time %s', (text, ms) => {
  expect(clockTime(text)).toBe(ms);
});

test.each(['24:00', '8:00', '08:60', '08:00:00', ' 08:00', '0800', '', 800, null])('not a clock time: %p', (text) => {
  expect(clockTime(text)).toBeUndefined();
});
