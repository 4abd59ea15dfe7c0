import { parseDelay, sendAtAfter } from '../../src/use-cases/messages/delay';

const NOW = new Date('2026-01-31T12:00:00.000Z');
const sendAt = (raw: unknown) => {
  const delay = parseDelay(raw);
  const at = delay && sendAtAfter(delay, NOW);
  return at?.toISOString();
};
const plus = (ms: number) => new Date(NOW.getTime() + ms).toISOString();

describe('delay forms', () => {
  test.each([
    ['absent', undefined, 0],
    ['null', null, 0],
    ['empty', '', 0],
    ['blank', '   ', 0],
    ['0', '0', 0],
    ['the number 0', 0, 0],
    ['plain seconds', '30', 30_000],
    ['the number 30', 30, 30_000],
    ['90s', '90s', 90_000],
    ['5m', '5m', 300_000],
    ['2h', '2h', 7_200_000],
    ['1d', '1d', 86_400_000],
    ['upper-case unit', '5M', 300_000],
    ['sum of units', '1h30m', 5_400_000],
    ['PT5M', 'PT5M', 300_000],
    ['pt5m in lower case', 'pt5m', 300_000],
    ['P1D', 'P1D', 86_400_000],
    ['P1DT2H', 'P1DT2H', 93_600_000],
    ['P2W', 'P2W', 14 * 86_400_000],
    ['PT0.5S', 'PT0.5S', 500],
    ['PT0S', 'PT0S', 0],
  ])('%s', (_name, raw, ms) => {
    expect(sendAt(raw)).toBe(plus(ms));
  });

  test('P1M is the same day next month, clamped to its last day', () => {
    expect(sendAt('P1M')).toBe('2026-02-28T12:00:00.000Z');
  });

  test('P1Y is the same date next year', () => {
    expect(sendAt('P1Y')).toBe('2027-01-31T12:00:00.000Z');
  });

  test('ten years is the longest delay', () => {
    expect(sendAt('P10Y')).toBe('2036-01-31T12:00:00.000Z');
    expect(sendAt('3650d')).toBeDefined();
  });
});

describe('delays that are refused', () => {
  test.each([
    ['negative seconds', '-5'],
    ['negative number', -5],
    ['negative ISO', '-PT5M'],
    ['fraction of seconds', '1.5'],
    ['fractional number', 1.5],
    ['unknown unit', '5x'],
    ['words', 'soon'],
    ['P alone', 'P'],
    ['PT alone', 'PT'],
    ['T with nothing after it', 'P1DT'],
    ['a boolean', true],
    ['an object', { seconds: 5 }],
    ['over ten years in seconds', '400000000'],
    ['over ten years in days', '3654d'],
    ['P10Y and a day', 'P10YT24H'],
    ['P11Y', 'P11Y'],
    ['121 months', 'P121M'],
    ['absurdly long digits', '9'.repeat(40)],
    ['absurd ISO years', `P${'9'.repeat(12)}Y`],
  ])('%s', (_name, raw) => {
    expect(sendAt(raw)).toBeUndefined();
  });
});
