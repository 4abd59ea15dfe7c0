/*
 * The benchmarks' HTTP clients behave as a well-behaved client of the API does: a 503 (the API's own
 * backpressure, "The service is busy; try again in 1 s") is counted, waited out for its Retry-After and
 * sent again; it does not end the run. The count is part of every scenario's figures.
 */

export interface BusyCount {
  /** 503 answers received (each one waited out and retried, until the last try). */
  answered503: number;
}

export interface BusyRetryOptions {
  /** Tries after the first before the 503 is handed to the caller (default 60). */
  maxRetries?: number;
  fetch?: (input: Request) => Promise<Response>;
  sleep?: (ms: number) => Promise<unknown>;
}

const MAX_WAIT_S = 30;

/** Seconds to wait for a 503's Retry-After (delta-seconds or an HTTP date); 1 s when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number {
  if (!header) return 1;
  const seconds = /^\s*\d+\s*$/.test(header) ? Number(header) : (Date.parse(header) - now) / 1000;
  return Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), MAX_WAIT_S) : 1;
}

/** A fetch for openapi-fetch's `fetch` option that counts 503s in `count`, honours Retry-After and retries. */
export function busyRetryingFetch(count: BusyCount, options: BusyRetryOptions = {}): (input: Request) => Promise<Response> {
  const send = options.fetch ?? ((input: Request) => fetch(input));
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const maxRetries = options.maxRetries ?? 60;
  return async (input) => {
    for (let attempt = 0; ; attempt++) {
      // A request's body can be read once: each try sends a copy.
      const response = await send(input.clone());
      if (response.status !== 503) return response;
      count.answered503++;
      if (attempt >= maxRetries) return response;
      await response.arrayBuffer().catch(() => undefined);
      await sleep(retryAfterSeconds(response.headers.get('retry-after')) * 1000);
    }
  };
}
