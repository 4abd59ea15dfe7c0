/**
 * Backpressure for the work an API process hands to Temporal: at most `limit` pieces of one kind in
 * flight at once; a request beyond that waits up to `waitMs` for a place, and is refused with
 * `TemporalBusyError` (503 with Retry-After) when none frees up in time — before anything is stored, so
 * a refused request left nothing behind. When Temporal falls behind, the calls in flight take longer,
 * the places stay taken and new requests are told to come back, instead of piling up until they time
 * out (a 504 for assign-agents).
 *
 * The places are shared fairly between tenants (the token's subject: docs/operations.md, "Backpressure"):
 * while several tenants have asked within the last second, each holds at most its share of the places
 * (the places divided by those tenants, rounded up), so a place stays free for the others rather than
 * going to the tenant that asks most; alone, a tenant may hold them all. Each tenant waits in its own
 * line, a freed place goes to the waiting tenant with the fewest places (the one served longest ago
 * among equals), and a tenant whose line is full is refused at once. So one tenant's flood fills its own
 * line and is refused, while another's request finds a place free.
 *
 * Places a tenant took while alone stay taken after another tenant arrives, until they settle. While
 * they do, a tenant below its share borrows as many places beyond the limit as the others hold beyond
 * theirs, so its request does not wait on another tenant's slow calls (in flight stays under twice the limit).
 */
export class TemporalBusyError extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    // An expected answer, given by the thousand to a flood: no stack trace to capture.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super('Too much work in flight to Temporal');
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'TemporalBusyError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface AdmissionLimit {
  /** At most this many in flight at once. */
  limit: number;
  /** How long a request may wait for a place before it is refused. */
  waitMs: number;
  /** At most this many of one tenant's requests wait; one more is refused at once. */
  waitingPerTenant: number;
  /** What the refusal's Retry-After says. */
  retryAfterSeconds: number;
  /**
   * Behind: while the oldest call in flight has run this long, a new request is refused at once rather
   * than queued behind it into a timeout (assign-agents: a 503 now instead of a 504 after 20 s).
   */
  shedAfterMs?: number;
}

export interface Admission {
  /** Runs `work` once a place is free for `tenant`, keeping it until `work` settles. */
  run<T>(tenant: string, work: () => Promise<T>): Promise<T>;
  readonly inFlight: number;
  readonly waiting: number;
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

/** How long a tenant counts as active after its last request, for the shares. */
const ACTIVE_MS = 1000;

interface TenantLine {
  inFlight: number;
  waiting: Waiter[];
  /** When it last got a place (a counter): among tenants with as many places, the one served longest ago goes first. */
  servedAt: number;
}

export function createAdmission({ limit, waitMs, waitingPerTenant, retryAfterSeconds, shedAfterMs }: AdmissionLimit): Admission {
  let inFlight = 0;
  /** When each call in flight started, oldest first (a Map keeps insertion order). */
  const started = new Map<number, number>();
  let calls = 0;
  const behind = () => {
    if (shedAfterMs === undefined) return false;
    for (const at of started.values()) return Date.now() - at >= shedAfterMs;
    return false;
  };
  let waiting = 0;
  let served = 0;
  const tenants = new Map<string, TenantLine>();
  /** Each tenant's last request (ms), for the tenants active now; swept at most every ACTIVE_MS / 10. */
  const lastAsked = new Map<string, number>();
  let active = 1;
  let sweptAt = 0;
  const countActive = (now: number) => {
    if (now - sweptAt >= ACTIVE_MS / 10) {
      sweptAt = now;
      for (const [known, at] of lastAsked) if (now - at > ACTIVE_MS) lastAsked.delete(known);
    }
    active = Math.max(1, lastAsked.size);
  };
  const noteAsked = (tenant: string) => {
    const now = Date.now();
    lastAsked.set(tenant, now);
    countActive(now);
  };
  /** Whether `line` may take one more place: below its share, or no other tenant active. */
  const mayTake = (line: TenantLine) => line.inFlight < Math.ceil(limit / active);
  /** The limit, plus the places tenants hold beyond their share (lent to the tenants below theirs). */
  const capacity = () => {
    const share = Math.ceil(limit / active);
    let over = 0;
    for (const line of tenants.values()) if (line.inFlight > share) over += line.inFlight - share;
    return limit + over;
  };

  const lineOf = (tenant: string) => {
    let line = tenants.get(tenant);
    if (!line) tenants.set(tenant, (line = { inFlight: 0, waiting: [], servedAt: 0 }));
    return line;
  };
  const forgetIfIdle = (tenant: string, line: TenantLine) => {
    if (line.inFlight === 0 && line.waiting.length === 0) tenants.delete(tenant);
  };
  const take = (line: TenantLine) => {
    inFlight++;
    line.inFlight++;
    line.servedAt = ++served;
  };

  /** The waiting tenant below its share with the fewest places, the one served longest ago among equals. */
  const nextLine = (): TenantLine | undefined => {
    let next: TenantLine | undefined;
    for (const line of tenants.values()) {
      if (line.waiting.length === 0 || !mayTake(line)) continue;
      if (!next || line.inFlight < next.inFlight || (line.inFlight === next.inFlight && line.servedAt < next.servedAt)) next = line;
    }
    return next;
  };

  const release = (tenant: string, line: TenantLine) => {
    inFlight--;
    line.inFlight--;
    forgetIfIdle(tenant, line);
    countActive(Date.now());
    for (let next = nextLine(); next && inFlight < capacity(); next = nextLine()) {
      const waiter = next.waiting.shift()!;
      waiting--;
      clearTimeout(waiter.timer);
      take(next);
      waiter.admit();
    }
  };

  const acquire = (tenant: string, line: TenantLine): Promise<void> => {
    // A free place within the tenant's share is taken at once.
    noteAsked(tenant);
    if (behind()) {
      forgetIfIdle(tenant, line);
      return Promise.reject(new TemporalBusyError(retryAfterSeconds));
    }
    if (mayTake(line) && (inFlight < limit || inFlight < capacity())) {
      take(line);
      return Promise.resolve();
    }
    if (line.waiting.length >= waitingPerTenant) {
      forgetIfIdle(tenant, line);
      return Promise.reject(new TemporalBusyError(retryAfterSeconds));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        admit: resolve,
        timer: setTimeout(() => {
          line.waiting.splice(line.waiting.indexOf(waiter), 1);
          waiting--;
          forgetIfIdle(tenant, line);
          reject(new TemporalBusyError(retryAfterSeconds));
        }, waitMs),
      };
      line.waiting.push(waiter);
      waiting++;
    });
  };

  return {
    async run(tenant, work) {
      const line = lineOf(tenant);
      await acquire(tenant, line);
      const call = ++calls;
      started.set(call, Date.now());
      try {
        return await work();
      } finally {
        started.delete(call);
        release(tenant, line);
      }
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return waiting;
    },
  };
}

/** The API process's gates: message accepts and assign-agents requests each have their own places. */
export interface Admissions {
  messages: Admission;
  assign: Admission;
  /** CRM events handed to their lead workflows after the webhook was answered (nobody waits on them: long waits, long lines). */
  leads: Admission;
}

/**
 * Measured with `npm run bench -- isolation` (docs/performance.md, "The five goals"): message starts are cheap and
 * come in bursts, so they get few places (6: assign p99 0.70 s during a burst of 10,000, against 1.37 s
 * with 16, at the same accept rate) and a short wait, so that an ordinary burst is smoothed rather than
 * refused. An assign request holds its place until its workflow answers (tens of milliseconds when all
 * is well). A tenant's line holds 100 requests whatever the places: a waiting request costs an open
 * connection and no CPU, whereas one refused at once comes straight back from a client that does not
 * wait out Retry-After, and every answer costs the event loop all tenants share. Beyond it: refused at once.
 * Assign requests wait up to 8 s for a place: a burst for one client is recorded in batches by its run,
 * faster than a client retrying a 503 would come back. An assign request whose run has not answered in 10 s means the worker is behind: new ones are refused at
 * once until it catches up, so those in flight still answer within their 20 s rather than all timing out.
 */
export const DEFAULT_ADMISSION: Record<keyof Admissions, AdmissionLimit> = {
  messages: { limit: 6, waitMs: 1000, waitingPerTenant: 100, retryAfterSeconds: 1 },
  assign: { limit: 32, waitMs: 8000, waitingPerTenant: 100, retryAfterSeconds: 2, shedAfterMs: 10_000 },
  leads: { limit: 8, waitMs: 300_000, waitingPerTenant: 10_000, retryAfterSeconds: 1 },
};

/** The gates with the configured numbers of places (`MESSAGE_STARTS_IN_FLIGHT`, `ASSIGN_REQUESTS_IN_FLIGHT`). */
export function admissionLimits(places: { messages: number; assign: number }): Record<keyof Admissions, AdmissionLimit> {
  return {
    messages: { ...DEFAULT_ADMISSION.messages, limit: places.messages },
    assign: { ...DEFAULT_ADMISSION.assign, limit: places.assign },
    leads: DEFAULT_ADMISSION.leads,
  };
}

export function createAdmissions(limits: Record<keyof Admissions, AdmissionLimit> = DEFAULT_ADMISSION): Admissions {
  return { messages: createAdmission(limits.messages), assign: createAdmission(limits.assign), leads: createAdmission(limits.leads) };
}
