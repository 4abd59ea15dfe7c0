import { addWorkingTime } from '../../src/domain';

/* The first-response clock runs only inside the owner's working hours (src/domain/working-hours.ts). */

const weekdays = { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']] } as Parameters<typeof addWorkingTime>[0];

test('no hours: the clock runs all the time', () => {
  expect(addWorkingTime(null, null, new Date('2026-03-06T16:59:50Z'), 30_000)!.toISOString()).toBe('2026-03-06T17:00:20.000Z');
});

test('inside a shift the clock runs as the wall clock', () => {
  expect(addWorkingTime(weekdays, 'UTC', new Date('2026-03-04T10:00:00Z'), 15 * 60_000)!.toISOString()).toBe('2026-03-04T10:15:00.000Z');
});

test('a Friday evening deadline pauses over the weekend and resumes on Monday morning, in the owner\'s zone', () => {
  // Friday 16:59:50 in New York (EST, UTC-5): 10 s left that day, 20 s from Monday 09:00.
  expect(addWorkingTime(weekdays, 'America/New_York', new Date('2026-03-06T21:59:50Z'), 30_000)!.toISOString()).toBe('2026-03-09T13:00:20.000Z');
});

test('a client routed outside the hours waits for the next shift start before the clock runs', () => {
  // Saturday noon in New York, the week daylight saving starts: Monday 09:00 EDT is 13:00 UTC.
  expect(addWorkingTime(weekdays, 'America/New_York', new Date('2026-03-07T17:00:00Z'), 60_000)!.toISOString()).toBe('2026-03-09T13:01:00.000Z');
});

test('hours with no working time at all never run out', () => {
  expect(addWorkingTime({}, 'UTC', new Date('2026-03-04T10:00:00Z'), 1000)).toBeNull();
});
