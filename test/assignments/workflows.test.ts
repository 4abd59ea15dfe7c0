import { nextSleepMs } from '../../src/workflows/timers';
import { attemptsWithin, RECORDING_STEP_OPTIONS } from '../../src/workflows/retry-budget';
import { MAX_TIMER_CHUNK_MS } from '../../src/domain';

/* The arithmetic of the workflows' waits and retries (the client's run uses both: test/assignments/client-run-workflow.test.ts). */

test('a chunk never exceeds the longest timer, whatever the distance', async () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  expect(nextSleepMs(Date.parse('2143-06-23T00:00:00Z'), now)).toEqual({ sleepMs: MAX_TIMER_CHUNK_MS, reachesDeadline: false });
  expect(nextSleepMs(now + 5000, now)).toEqual({ sleepMs: 5000, reachesDeadline: true });
  expect(nextSleepMs(now - 5000, now)).toEqual({ sleepMs: 0, reachesDeadline: true });
});

test('the recording step retries as long as its 30 s budget: 200 ms doubling to at most 5 s, ten attempts', () => {
  expect(RECORDING_STEP_OPTIONS).toEqual(
    expect.objectContaining({
      scheduleToCloseTimeout: '30 seconds',
      retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 10 },
    }),
  );
});

test('attemptsWithin counts the attempts whose waits fit the budget', () => {
  expect(attemptsWithin(30_000, { initialMs: 200, coefficient: 2, maximumMs: 5000 })).toBe(10);
  expect(attemptsWithin(0, { initialMs: 200, coefficient: 2, maximumMs: 5000 })).toBe(1);
  expect(attemptsWithin(1000, { initialMs: 1000, coefficient: 2, maximumMs: 5000 })).toBe(2);
});
