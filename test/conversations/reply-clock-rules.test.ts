import { clockHolder, conversationClock, latestDecision, replyClockOf } from '../../src/domain/reply-clock';
import { DECISIONS, HOLDERS, NOW, SETTINGS, WAITS } from './reply-clock-cases';

/*
 * Which conversations hold a clock (src/domain/reply-clock.ts), no database:
 * test/conversations/reply-clock-sql.test.ts proves the client's run's queries and the reconciler's SQL say the same.
 */

test.each(SETTINGS)('replyClockOf: %s', (_name, settings, clock) => {
  expect(replyClockOf(settings)).toEqual(clock);
});

test.each(WAITS)('conversationClock: %s', (_name, conversation, withClock, without) => {
  expect([conversationClock(conversation, { within: 'PT1H', workingHours: true }), conversationClock(conversation, null)]).toEqual([withClock, without]);
});

const ids = (n: number) => Array.from({ length: n }, (_, i) => `0000000${i}-0000-4000-8000-000000000000`);

test.each(DECISIONS)('latestDecision: %s', (_name, decisions, latest) => {
  const rows = decisions.map((d, i) => ({ ...d, id: ids(decisions.length)[i] }));
  expect(latestDecision(rows)).toBe(latest === null ? null : rows[latest]);
});

test.each(HOLDERS)('clockHolder: %s', (_name, assignments, holder) => {
  const rows = assignments.map((a, i) => ({ ...a, id: ids(assignments.length)[i] }));
  expect(clockHolder(rows, NOW)).toBe(holder === null ? null : rows[holder]);
});
