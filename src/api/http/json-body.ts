import type { RequestHandler } from 'express';
import { HttpProblem } from './problem';

/**
 * A body is read only when it says it is JSON: a form or text body is a 415 before any route sees
 * it, instead of being parsed as JSON regardless of what the client declared. A request without a body
 * (no Content-Length, or 0, and no Transfer-Encoding) needs no Content-Type.
 */
export const jsonBodyOnly: RequestHandler = (req, _res, next) => {
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
  if (!hasBody || req.is(['application/json', 'application/*+json'])) return next();
  next(new HttpProblem(415, 'Content-Type must be application/json', '/problems/unsupported-media-type'));
};
