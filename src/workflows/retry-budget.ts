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

/**
 * The recording step of an assign request, whose caller waits 20 s for the answer: after 30 s of a
 * database that keeps failing the request fails (the API answers 503) rather than holding its run for
 * ever. Refused data fails at once.
 */
export const RECORDING_STEP_OPTIONS = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: attemptsWithin(30_000, { initialMs: 200, coefficient: 2, maximumMs: 5000 }),
  },
} as const;
