import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { HttpProblem } from './problem';

/*
 * The budgets of the doors anyone may knock on without a token (the CRMs' and carriers' callbacks,
 * /readyz), taken on arrival, before any database read, decryption or Temporal call. Each group of
 * doors has its own, each count running a minute from its first request. Per source address (an
 * IPv6 address by its /56):
 *  - `perSource` requests a minute, whatever their outcome;
 *  - `failedPerSource` requests a minute not proven genuine: each takes one on arrival and gives it
 *    back once it is not refused by its signature or secret (401, 403), so a forger's allowance is used
 *    up by its own failures and never by anyone's signed deliveries.
 * In total, `failedTotal` such requests a minute across the addresses that had no delivery accepted
 * (2xx) in the last two minutes: a flood from many addresses stops at it, and a sender whose signed delivery
 * was accepted lately is still let in. 0 turns a budget off. Counted in this process's memory.
 */

export interface DoorLimits {
  perSource: number;
  failedPerSource: number;
  failedTotal: number;
}

const WINDOW_MS = 60_000;
/** The addresses kept as lately proven are bounded; the oldest forgotten first. */
const MAX_PROVEN = 10_000;

/** A minute's counts, from the first request it counts (as express-rate-limit's memory store keeps them). */
interface Count {
  since: number;
  requests: number;
  unproven: number;
}

type Admission = { admitted: true; settle(status: number): void } | { admitted: false; retryAfterSeconds: number; detail: string };

export class DoorBudget {
  private readonly sources = new Map<string, Count>();
  private total: Count = { since: Number.NEGATIVE_INFINITY, requests: 0, unproven: 0 };
  private readonly proven = new Map<string, number>();

  constructor(
    private readonly limits: DoorLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes this request's share of `source`'s budgets, or says why not and for how long; `settle` gives back what its answer earns back. */
  admit(source: string): Admission {
    const now = this.now();
    if (now - this.total.since >= WINDOW_MS) {
      this.total = { since: now, requests: 0, unproven: 0 };
      for (const [key, count] of this.sources) if (now - count.since >= WINDOW_MS) this.sources.delete(key);
    }
    let count = this.sources.get(source);
    if (!count || now - count.since >= WINDOW_MS) count = { since: now, requests: 0, unproven: 0 };
    const { perSource, failedPerSource, failedTotal } = this.limits;
    const refuse = (since: number, detail: string): Admission => ({ admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((since + WINDOW_MS - now) / 1000)), detail });
    if (perSource > 0 && count.requests >= perSource) return refuse(count.since, `Too many requests: at most ${perSource} a minute from one address`);
    if (failedPerSource > 0 && count.unproven >= failedPerSource) {
      return refuse(count.since, `Too many requests: at most ${failedPerSource} a minute from one address whose signature or secret is not (yet) accepted`);
    }
    if (failedTotal > 0 && this.total.unproven >= failedTotal && !this.isProven(source, now)) {
      return refuse(this.total.since, `Too many unverified requests: at most ${failedTotal} a minute from addresses without an accepted delivery`);
    }
    const total = this.total;
    const counted = count;
    counted.requests++;
    counted.unproven++;
    total.unproven++;
    this.sources.set(source, counted);
    let settled = false;
    return {
      admitted: true,
      settle: (status) => {
        if (settled || status === 401 || status === 403) return;
        settled = true;
        counted.unproven--;
        total.unproven--;
        if (status >= 200 && status < 300) this.markProven(source);
      },
    };
  }

  private isProven(source: string, now: number): boolean {
    const until = this.proven.get(source);
    return until !== undefined && until > now;
  }

  private markProven(source: string): void {
    this.proven.delete(source);
    if (this.proven.size >= MAX_PROVEN) this.proven.delete(this.proven.keys().next().value!);
    this.proven.set(source, this.now() + 2 * WINDOW_MS);
  }
}

/** The request's source: the socket's address, or the one `trust proxy` lets X-Forwarded-For name. */
export const sourceOf = (req: Request): string => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');

/** The door's budget, taken before anything else; over it, a 429 problem with `Retry-After`. */
export function publicDoor(budget: DoorBudget): RequestHandler {
  return (req, res, next) => {
    const admission = budget.admit(sourceOf(req));
    if (!admission.admitted) {
      return next(new HttpProblem(429, admission.detail, '/problems/rate-limited', { 'Retry-After': String(admission.retryAfterSeconds) }));
    }
    // A request whose client went away unanswered keeps its share, as a failure would.
    res.once('finish', () => admission.settle(res.statusCode));
    next();
  };
}
