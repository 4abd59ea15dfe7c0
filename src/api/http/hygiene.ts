import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** Security headers for a JSON API, and answers no cache may keep (they carry per-user data). */
export function securityHeaders(): RequestHandler[] {
  return [
    helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } } }),
    (_req, res, next) => {
      res.setHeader('Cache-Control', 'no-store');
      next();
    },
  ];
}

/** Browsers may call the API only from the listed origins; with none listed, no CORS headers at all. */
export function corsAllowList(origins: readonly string[]): RequestHandler {
  if (origins.length === 0) return (_req, _res, next) => next();
  return cors({
      origin: [...origins],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
      exposedHeaders: ['Location', 'X-Request-Id', 'Retry-After', 'Idempotent-Replayed', 'RateLimit', 'RateLimit-Policy'],
      maxAge: 600,
    });
}
