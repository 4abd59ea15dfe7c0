import type { RequestHandler } from 'express';
import { badRequest, unauthorized } from './problem';

/*
 * PostgreSQL's text cannot hold a NUL character, and UTF-8 cannot encode half a surrogate pair: such a
 * string fails inside the database, after a workflow has started. No string of a body gets that far.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasUnstorableCharacters(value: string): boolean {
  return UNSTORABLE.test(value);
}

/** The path of the first string (key or value) in `value` that PostgreSQL cannot store, e.g. `agents.0.agent`. */
export function firstUnstorableField(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') return hasUnstorableCharacters(value) ? path.join('.') || 'request body' : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (hasUnstorableCharacters(key)) return [...path, '(a key)'].join('.');
    const found = firstUnstorableField(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

export const unstorableFieldProblem = (field: string) => badRequest(`Invalid ${field}: must not contain NUL characters or unpaired surrogates`);

export const storableBody: RequestHandler = (req, _res, next) => {
  const field = firstUnstorableField(req.body);
  next(field ? unstorableFieldProblem(field) : undefined);
};

/** How many times a header occurs in the request as sent (Node joins or drops repeats). */
function occurrences(rawHeaders: string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === name) count++;
  return count;
}

/**
 * Node keeps the first of two Authorization headers and joins two Idempotency-Keys into "k1, k2":
 * either way the request would be served as something it did not say once.
 */
export const singleValuedHeaders: RequestHandler = (req, _res, next) => {
  if (occurrences(req.rawHeaders, 'authorization') > 1) return next(unauthorized('More than one Authorization header'));
  if (occurrences(req.rawHeaders, 'idempotency-key') > 1) return next(badRequest('More than one Idempotency-Key header'));
  next();
};
