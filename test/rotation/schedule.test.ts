import { nextChange, periodStartAt, segmentAt, takeOverAt, type Schedule } from '../../src/domain/rotation-schedule';
import { durationText, parseRotationRequest } from '../../src/use-cases/rotation/request';

/* The rotation's arithmetic alone: boundaries come from the schedule, whatever the time of asking. */

const at = (iso: string) => new Date(iso);
const weekly: Schedule = {
  agentIds: ['a1', 'a2', 'a3'],
  period: 'P7D',
  periodMs: 7 * 86_400_000,
  startsAt: at('2026-11-23T09:00:00Z'),
  effectiveAt: at('2026-11-23T09:00:00Z'),
  notes: null,
};

test('period k runs from startsAt + k·period to the next boundary and belongs to agent k mod n', () => {
  expect(segmentAt(weekly, at('2026-11-23T09:00:00Z'))).toEqual({ start: at('2026-11-23T09:00:00Z'), end: at('2026-11-30T09:00:00Z'), index: 0, position: 0 });
  // Asked late (a worker that woke up on Wednesday), the period still ends at the boundary.
  expect(segmentAt(weekly, at('2026-12-02T17:31:00Z'))).toMatchObject({ end: at('2026-12-07T09:00:00Z'), index: 1, position: 1 });
  expect(segmentAt(weekly, at('2026-12-14T09:00:00Z'))).toMatchObject({ index: 3, position: 0 });
  expect(periodStartAt(weekly, at('2026-12-02T17:31:00Z'))).toEqual(at('2026-11-30T09:00:00Z'));
  // A replacement due earlier cuts the piece short.
  expect(segmentAt(weekly, at('2026-11-23T09:00:00Z'), at('2026-11-25T00:00:00Z')).end).toEqual(at('2026-11-25T00:00:00Z'));
});

test('a rotation takes over now, at the end of the period in progress, or at its later start', () => {
  const now = at('2026-11-25T12:00:00Z');
  const inProgressUntil = at('2026-11-30T09:00:00Z');
  expect(takeOverAt({ now, periodInProgressUntil: null, applyNow: false, startsAt: null })).toEqual(now);
  expect(takeOverAt({ now, periodInProgressUntil: inProgressUntil, applyNow: false, startsAt: null })).toEqual(inProgressUntil);
  expect(takeOverAt({ now, periodInProgressUntil: inProgressUntil, applyNow: true, startsAt: null })).toEqual(now);
  expect(takeOverAt({ now, periodInProgressUntil: at('2026-11-20T00:00:00Z'), applyNow: false, startsAt: null })).toEqual(now);
  expect(takeOverAt({ now, periodInProgressUntil: inProgressUntil, applyNow: false, startsAt: at('2026-12-01T00:00:00Z') })).toEqual(at('2026-12-01T00:00:00Z'));
  // A start in the past only sets the phase.
  expect(takeOverAt({ now, periodInProgressUntil: null, applyNow: false, startsAt: at('2026-01-01T00:00:00Z') })).toEqual(now);
});

test('the next change is the end of the last period handed out, under the replacement once it is due', () => {
  expect(nextChange({ schedule: weekly, pending: null, coveredUntil: null })).toMatchObject({ at: weekly.effectiveAt, replaced: false, segment: { position: 0 } });
  const coveredUntil = at('2026-11-30T09:00:00Z');
  expect(nextChange({ schedule: weekly, pending: null, coveredUntil })).toMatchObject({ at: coveredUntil, segment: { position: 1 } });

  const replacement: Schedule = { ...weekly, agentIds: ['b1', 'b2'], startsAt: coveredUntil, effectiveAt: coveredUntil };
  expect(nextChange({ schedule: weekly, pending: replacement, coveredUntil })).toMatchObject({ at: coveredUntil, replaced: true, schedule: replacement, segment: { position: 0 } });
  const later: Schedule = { ...replacement, startsAt: at('2026-12-02T00:00:00Z'), effectiveAt: at('2026-12-02T00:00:00Z') };
  const change = nextChange({ schedule: weekly, pending: later, coveredUntil });
  expect(change).toMatchObject({ replaced: false, segment: { position: 1, end: at('2026-12-02T00:00:00Z') } });
});

test('a schedule that took over mid-period (a start in the past) hands out the rest of that period first', () => {
  const phased: Schedule = { ...weekly, effectiveAt: at('2026-12-02T17:31:00Z') };
  expect(nextChange({ schedule: phased, pending: null, coveredUntil: null }).segment).toEqual({
    start: at('2026-12-02T17:31:00Z'),
    end: at('2026-12-07T09:00:00Z'),
    index: 1,
    position: 1,
  });
});

test('periods: ISO 8601 durations and lengths of fixed size, between the minimum and 10 years', () => {
  const period = (value: unknown, minPeriodMs?: number) => parseRotationRequest({ agents: ['a1'], period: value }, { minPeriodMs }).periodMs;
  expect(period('P7D')).toBe(7 * 86_400_000);
  expect(period('P1W')).toBe(7 * 86_400_000);
  expect(period('PT8H')).toBe(8 * 3_600_000);
  expect(period('8h')).toBe(8 * 3_600_000);
  expect(period('1h30m')).toBe(90 * 60_000);
  expect(period('2d')).toBe(2 * 86_400_000);
  expect(period(3600)).toBe(3_600_000);
  expect(period('3650d')).toBe(3650 * 86_400_000);
  expect(period('2s', 1000)).toBe(2000);
  expect(() => period('P1M')).toThrow('Invalid period: must be a fixed length (weeks, days, hours, minutes, seconds), not months or years');
  expect(() => period('P1Y')).toThrow(/not months or years/);
  expect(() => period('59s')).toThrow('Invalid period: must be between 1 minute and 10 years');
  expect(() => period('3654d')).toThrow('Invalid period: must be between 1 minute and 10 years');
  expect(() => period('500ms', 1000)).toThrow('Invalid period: must be an ISO 8601 duration such as P7D or PT8H, or a length such as 8h, 30m or 2d');
  expect(() => period('0s', 1000)).toThrow('Invalid period: must be between 1 second and 10 years');
  expect(durationText(60_000)).toBe('1 minute');
  expect(durationText(120_000)).toBe('2 minutes');
  expect(durationText(1500)).toBe('1500 milliseconds');
});
