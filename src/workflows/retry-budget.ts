/**
 * How many attempts an exponential retry policy makes before its waits add up to `budgetMs`. Temporal
 * honours `maximumAttempts` for a local activity but not, across workflow task heartbeats and worker
 * restarts, its `scheduleToCloseTimeout`: the count is what actually bounds the retries by time.
 */
export function attemptsWithin(budgetMs: number, retry: { initialMs: number; coefficient: number; maximumMs: number }): number {
  let waited = 0;
  let attempts = 1;
  for (let wait = retry.initialMs; waited + Math.min(wait, retry.maximumMs) <= budgetMs; wait *= retry.coefficient) {
    waited += Math.min(wait, retry.maximumMs);
    attempts += 1;
  }
  return attempts;
}
