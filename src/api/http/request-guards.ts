import type { RequestHandler } from 'express';
import { firstUnstorableField, unstorableField } from '../../use-cases/input/storable';
import { badRequest, unauthorized } from './problem';

/** No string a body carries that PostgreSQL cannot store gets past the router (see src/use-cases/input/storable.ts). */
export const storableBody: RequestHandler = (req, _res, next) => {
  try {
    const field = firstUnstorableField(req.body);
    next(field ? unstorableField(field) : undefined);
  } catch (error) {
    next(error);
  }
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
