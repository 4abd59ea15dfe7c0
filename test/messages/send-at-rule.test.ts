import { INVALID_SEND_AT, parseSendAt } from '../../src/use-cases/messages/send-at';

/* send_at as a rule: each written form, and what it means against a fixed now. */

const NOW = new Date('2026-11-28T12:00:00.000Z');

test.each([
  ['a UTC instant', '2030-01-01T00:00:00Z', '2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z'],
  ['an offset, read as written', '2030-01-01T09:00:00-05:00', '2030-01-01T14:00:00.000Z', '2030-01-01T14:00:00.000Z'],
  ['fractions of a second', '2026-11-28T12:00:01.5Z', '2026-11-28T12:00:01.500Z', '2026-11-28T12:00:01.500Z'],
  ['a minute late: sent now', '2026-11-28T11:59:00Z', '2026-11-28T11:59:00.000Z', '2026-11-28T12:00:00.000Z'],
  ['surrounding spaces', ' 2030-01-01T00:00:00Z ', '2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z'],
])('%s is due as expected', (_name, raw, asked, due) => {
  const parsed = parseSendAt(raw, NOW);
  expect({ asked: parsed.asked.toISOString(), due: parsed.due.toISOString() }).toEqual({ asked, due });
});

test.each([
  ['a date alone', '2030-01-01', INVALID_SEND_AT],
  ['a time without its zone', '2030-01-01T09:00:00', INVALID_SEND_AT],
  ['a number', 1893456000, INVALID_SEND_AT],
  ['not a date', 'tomorrow', INVALID_SEND_AT],
  ['an hour in the past', '2026-11-28T11:00:00Z', 'Invalid send_at: must not be in the past (5 minutes late at most, which sends now)'],
  ['eleven years ahead', '2037-11-28T12:00:00Z', /^Invalid send_at: at most \d+ years ahead$/],
])('%s is a 400', (_name, raw, message) => {
  expect(() => parseSendAt(raw, NOW)).toThrow(message);
});
