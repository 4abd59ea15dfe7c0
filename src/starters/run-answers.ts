import type { Client as TemporalClient } from '@temporalio/client';

/*
 * When a client's run last answered an update through this Temporal client: the API's evidence that a
 * worker polls the assign queue. Temporal's own list of pollers keeps a stopped worker for minutes, so
 * it cannot tell a worker that is behind from one that is gone; an answer can.
 */

const lastAnswer = new WeakMap<TemporalClient, number>();

/** A run answered (a result, or the failure its handler gave): a worker took the update. */
export function noteRunAnswered(temporal: TemporalClient, at = Date.now()): void {
  lastAnswer.set(temporal, at);
}

/** Whether a run answered within the last `ms`. */
export function runAnsweredWithin(temporal: TemporalClient, ms: number, now = Date.now()): boolean {
  const at = lastAnswer.get(temporal);
  return at !== undefined && now - at <= ms;
}
