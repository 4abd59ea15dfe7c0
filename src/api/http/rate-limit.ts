import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { HttpProblem } from './problem';

/**
 * At most `perMinute` requests per user (the token's subject) and minute, whatever the business in the
 * path: the caller chooses that segment, so counting per business would let it multiply its allowance.
 * Announced in the IETF `RateLimit` headers; over it, a 429 problem with `Retry-After`. Counted in this
 * process's memory: behind several API processes each counts its own share.
 */
export function perUserRateLimit(perMinute: number): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  return rateLimit({
      windowMs: 60_000,
      limit: perMinute,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      keyGenerator: (req) => req.caller!.userId,
      handler: (_req, res, next) => {
        const retryAfter = res.getHeader('Retry-After');
        next(new HttpProblem(429, `Too many requests: at most ${perMinute} a minute per user`, '/problems/rate-limited', retryAfter ? { 'Retry-After': String(retryAfter) } : {}));
      },
    });
}
