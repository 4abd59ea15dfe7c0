import { MAX_TIMER_CHUNK_MS } from './definitions/common';

/** How long to sleep now to approach `deadlineMs`, never more than one timer chunk. */
export function nextSleepMs(deadlineMs: number, nowMs: number): { sleepMs: number; reachesDeadline: boolean } {
  const remaining = deadlineMs - nowMs;
  if (remaining <= MAX_TIMER_CHUNK_MS) return { sleepMs: Math.max(remaining, 0), reachesDeadline: true };
  return { sleepMs: MAX_TIMER_CHUNK_MS, reachesDeadline: false };
}
