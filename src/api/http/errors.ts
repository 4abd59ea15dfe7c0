import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { ServiceError, WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { TemporalBusyError } from '../../starters/admission';
import { TemporalUnavailableError } from '../../starters/availability';
import { databaseFailureOf } from '../../use-cases/database';
import { refusalOf, UseCaseError } from '../../use-cases/errors';
import { jsonText } from './json-text';
import { badRequest, HttpProblem } from './problem';
import { REQUEST_ID_HEADER } from './request-id';

/** The problem's `instance` names this occurrence by its request id, which the caller can quote. */
export function sendProblem(res: Response, problem: HttpProblem): void {
  const requestId = res.getHeader(REQUEST_ID_HEADER);
  res
    .status(problem.status)
    .set({ ...problem.headers, 'Content-Type': 'application/problem+json' })
    .send(
      jsonText({
        type: problem.type,
        title: STATUS_CODES[problem.status],
        status: problem.status,
        detail: problem.detail,
        ...(problem.hint && { hint: problem.hint }),
        ...(requestId && { instance: `urn:request:${requestId}` }),
      }),
    );
}

/** The problem a use case's error stands for (src/use-cases/errors.ts), or the route's own HttpProblem. */
function requestProblem(error: unknown): HttpProblem | undefined {
  if (error instanceof HttpProblem) return error;
  if (!(error instanceof UseCaseError)) return undefined;
  const refusal = refusalOf(error);
  const headers: Record<string, string> = refusal.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(refusal.retryAfterSeconds) };
  const problem = new HttpProblem(refusal.status, refusal.detail, refusal.type, headers);
  if (refusal.hint) problem.hint = refusal.hint;
  return problem;
}

/** express.json()'s own errors: malformed JSON, oversized or undecodable bodies. */
function bodyParserProblem(error: unknown): HttpProblem | undefined {
  const e = error as { type?: string; status?: number; limit?: number };
  switch (e?.type) {
    case 'entity.parse.failed':
      return new HttpProblem(400, 'Malformed JSON body', '/problems/malformed-json');
    case 'entity.too.large':
      return new HttpProblem(413, `Request body is larger than ${e.limit !== undefined && e.limit >= 2 ** 20 ? `${e.limit / 2 ** 20} MB` : '100 kB'}`, '/problems/payload-too-large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpProblem(415, 'Unsupported body encoding', '/problems/unsupported-media-type');
    default:
      return typeof e?.status === 'number' && e.status >= 400 && e.status < 500
        ? new HttpProblem(e.status, STATUS_CODES[e.status] ?? 'Bad request')
        : undefined;
  }
}

/** gRPC's DEADLINE_EXCEEDED and UNAVAILABLE. */
const UNREACHABLE_TEMPORAL_CODES = new Set([4, 14]);

/**
 * A request workflow (or a client run's update) whose step kept failing on something that heals (the database, say) until its
 * retries ran out. A local activity's last failure reaches the workflow unwrapped: a retryable
 * failure that ended the run can only be one whose retries are spent.
 */
function retriesExhausted(error: unknown): boolean {
  if (!(error instanceof WorkflowFailedError) && !(error instanceof WorkflowUpdateFailedError)) return false;
  if (error.cause instanceof ApplicationFailure && !error.cause.nonRetryable) return true;
  for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ActivityFailure && (cause.retryState === RetryState.MAXIMUM_ATTEMPTS_REACHED || cause.retryState === RetryState.TIMEOUT)) return true;
  }
  return false;
}

function backingServiceUnavailable(error: unknown): boolean {
  if (error instanceof ServiceError) return UNREACHABLE_TEMPORAL_CODES.has((error.cause as { code?: number } | undefined)?.code ?? -1);
  return databaseFailureOf(error)?.kind === 'unavailable' || retriesExhausted(error);
}

/** Anything the database refused that the request's checks let through is the request's fault, and nothing was stored. */
function refusedDataProblem(error: unknown): HttpProblem | undefined {
  const failure = databaseFailureOf(error);
  return failure?.kind === 'refused' ? badRequest(`The database refused the request's data (SQLSTATE ${failure.sqlState ?? 'unknown'}); nothing was stored`) : undefined;
}

export function errorMiddleware(log: (error: unknown) => void): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    if (res.headersSent) return;
    const problem = requestProblem(error);
    if (problem) return sendProblem(res, problem);
    const parserProblem = bodyParserProblem(error);
    if (parserProblem) return sendProblem(res, parserProblem);
    if (error instanceof TemporalBusyError) {
      return sendProblem(res, new HttpProblem(503, `The service is busy; try again in ${error.retryAfterSeconds} s`, '/problems/unavailable', { 'Retry-After': String(error.retryAfterSeconds) }));
    }
    if (error instanceof TemporalUnavailableError) {
      return sendProblem(res, new HttpProblem(503, 'A backing service is unavailable; try again shortly', '/problems/unavailable', { 'Retry-After': String(error.retryAfterSeconds) }));
    }
    log(error);
    const refused = refusedDataProblem(error);
    if (refused) return sendProblem(res, refused);
    if (backingServiceUnavailable(error)) {
      return sendProblem(
        res,
        new HttpProblem(503, 'A backing service is unavailable; try again shortly', '/problems/unavailable', { 'Retry-After': '5' }),
      );
    }
    sendProblem(res, new HttpProblem(500, 'Internal server error', '/problems/internal'));
  };
}

export const notFoundHandler: RequestHandler = (req, res) =>
  sendProblem(res, new HttpProblem(404, `No route for ${req.method} ${req.path}`, '/problems/not-found'));
