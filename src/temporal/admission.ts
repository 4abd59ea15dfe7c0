/**
 * Backpressure for the work an API process hands to Temporal: at most `limit` pieces of one kind in
 * flight at once; a request beyond that waits up to `waitMs` for a place, and is refused with
 * `TemporalBusyError` (503 with Retry-After) when none frees up in time — before anything is stored, so
 * a refused request left nothing behind. When Temporal falls behind, the calls in flight take longer,
 * the places stay taken and new requests are told to come back, instead of piling up until they time
 * out (a 504 for assign-agents).
 */
export class TemporalBusyError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Too much work in flight to Temporal');
    this.name = 'TemporalBusyError';
  }
}

export interface AdmissionLimit {
  /** At most this many in flight at once. */
  limit: number;
  /** How long a request may wait for a place before it is refused. */
  waitMs: number;
  /** What the refusal's Retry-After says. */
  retryAfterSeconds: number;
}

export interface Admission {
  /** Runs `work` once a place is free, keeping it until `work` settles. */
  run<T>(work: () => Promise<T>): Promise<T>;
  readonly inFlight: number;
  readonly waiting: number;
}

export function createAdmission({ limit, waitMs, retryAfterSeconds }: AdmissionLimit): Admission {
  let inFlight = 0;
  const queue: { admit: () => void; timer: NodeJS.Timeout }[] = [];

  const release = () => {
    const next = queue.shift();
    if (next) {
      clearTimeout(next.timer);
      next.admit(); // the place passes on, inFlight unchanged
    } else {
      inFlight--;
    }
  };

  const acquire = (): Promise<void> => {
    if (inFlight < limit) {
      inFlight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        admit: resolve,
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(entry), 1);
          reject(new TemporalBusyError(retryAfterSeconds));
        }, waitMs),
      };
      queue.push(entry);
    });
  };

  return {
    async run(work) {
      await acquire();
      try {
        return await work();
      } finally {
        release();
      }
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return queue.length;
    },
  };
}

/** The API process's gates: message accepts and assign-agents requests each have their own places. */
export interface Admissions {
  messages: Admission;
  assign: Admission;
}

/**
 * Measured with `npm run bench -- isolation` (docs/performance.md, "The five goals"): message starts are cheap and
 * come in bursts, so they get few places (6: assign p99 0.70 s during a burst of 10,000, against 1.37 s
 * with 16, at the same accept rate) and a short wait, so that an ordinary burst is smoothed rather than
 * refused. An assign request holds its place until its workflow answers (tens of milliseconds when all
 * is well).
 */
export const DEFAULT_ADMISSION: Record<keyof Admissions, AdmissionLimit> = {
  messages: { limit: 6, waitMs: 1000, retryAfterSeconds: 1 },
  assign: { limit: 32, waitMs: 2000, retryAfterSeconds: 2 },
};

/** The gates with the configured numbers of places (`MESSAGE_STARTS_IN_FLIGHT`, `ASSIGN_REQUESTS_IN_FLIGHT`). */
export function admissionLimits(places: { messages: number; assign: number }): Record<keyof Admissions, AdmissionLimit> {
  return {
    messages: { ...DEFAULT_ADMISSION.messages, limit: places.messages },
    assign: { ...DEFAULT_ADMISSION.assign, limit: places.assign },
  };
}

export function createAdmissions(limits: Record<keyof Admissions, AdmissionLimit> = DEFAULT_ADMISSION): Admissions {
  return { messages: createAdmission(limits.messages), assign: createAdmission(limits.assign) };
}
