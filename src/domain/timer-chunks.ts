import { MAX_TIMER_CHUNK_MS } from './common';

/**
 * At most this much is taken off a chunk that does not reach the deadline, at random per run, so that
 * runs created together (100,000 assignments loaded in an hour) do not all wake together 30 days later.
 */
export const CHUNK_JITTER_MS = 24 * 60 * 60 * 1000;

/** How long to sleep now to approach `deadlineMs`, never more than one timer chunk (less `jitterMs`, when it does not reach it). */
export function nextSleepMs(deadlineMs: number, nowMs: number, jitterMs = 0): { sleepMs: number; reachesDeadline: boolean } {
  const remaining = deadlineMs - nowMs;
  if (remaining <= MAX_TIMER_CHUNK_MS) return { sleepMs: Math.max(remaining, 0), reachesDeadline: true };
  return { sleepMs: MAX_TIMER_CHUNK_MS - jitterMs, reachesDeadline: false };
}
