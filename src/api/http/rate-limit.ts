import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { HttpProblem } from './problem';

/**
 * At most `perMinute` requests per user (the token's subject) and minute, whatever the business in the
 * path: the caller chooses that segment, so counting per business would let it multiply its allowance.
 * Announced in the IETF `RateLimit` headers; over it, a 429 problem with `Retry-After`. Counted in this
 * process's memory: behind several API processes each counts its own share.
 */
export function perUserRateLimit(perMinute: number): RequestHandler {
  return perMinuteLimit(perMinute, (req) => req.caller!.userId, `Too many requests: at most ${perMinute} a minute per user`);
}

/**
 * At most `perMinute` deliveries a minute to one CRM door of one business (`/integrations/{crm}/{business}/…`)
 * that its signature or secret let in: a request refused (4xx) gives its place back once answered, so
 * forged requests, which the public doors' budgets stop first (public-doors.ts), never use up the
 * allowance of the CRM's own. The CRM retries what it is refused. Counted in this process's memory.
 */
export function perConnectorRateLimit(crm: string, perMinute: number): RequestHandler {
  return perMinuteLimit(perMinute, (req) => `${crm}/${req.params.business as string}`, `Too many requests: at most ${perMinute} a minute to a business's ${crm} connector`, true);
}

/** `perMinute` requests a minute per key (none when 0), in the IETF `RateLimit` headers; over it a 429 problem with `Retry-After`. */
function perMinuteLimit(perMinute: number, keyOf: (req: Request) => string, refusal: string, onlyAccepted = false): RequestHandler {
  if (perMinute <= 0) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: keyOf,
    skipFailedRequests: onlyAccepted,
    handler: (_req, res, next) => {
      const retryAfter = res.getHeader('Retry-After');
      next(new HttpProblem(429, refusal, '/problems/rate-limited', retryAfter ? { 'Retry-After': String(retryAfter) } : {}));
    },
  });
}
