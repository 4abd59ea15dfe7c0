import { STATUS_CODES } from 'node:http';
import { ApplicationFailure } from '@temporalio/common';
import { HandlerError, OperationError } from 'nexus-rpc';
import { refusalOf, UseCaseError, type Refusal } from '../use-cases/errors';
import type { CrmProblem } from './contract';
import { BatchRefused } from '../use-cases/messages/accept-batch';
import { messageRunFailureMessage, MessageRunFailureType, type MessageRunFailureDetails } from '../domain';

/**
 * What the caller sees for a use case's error (src/use-cases/errors.ts), through the same table as the
 * HTTP door. A 4xx problem is a final answer: a failed operation (never retried) carrying the problem's
 * type and detail, exactly as the HTTP route answers. A 503 or 504 problem, and any error that is no
 * problem at all (database or Temporal unreachable), is a retryable handler error: Nexus repeats the
 * request, which every operation makes safe.
 */
export function toNexusError(error: unknown): unknown {
  if (!(error instanceof UseCaseError)) return error;
  const problem = refusalOf(error);
  // A batch none of whose recipients was accepted says why for each, as the HTTP 400 does.
  const cause = problemFailure(problem, error instanceof BatchRefused ? { batch_id: null, results: error.results } : {});
  if (problem.status >= 500) {
    return new HandlerError(problem.status === 504 ? 'UPSTREAM_TIMEOUT' : 'UNAVAILABLE', problem.detail, { cause, retryableOverride: true });
  }
  return withoutStack(new OperationError('failed', problem.detail, { cause }));
}

/** A rejection is an answer, not a crash: the caller's history gets no stack trace of this service. */
function withoutStack<E extends Error>(error: E): E {
  error.stack = '';
  return error;
}

function problemFailure(problem: Refusal, extensions: Record<string, unknown>): ApplicationFailure {
  const details: CrmProblem = { type: problem.type, title: STATUS_CODES[problem.status] ?? 'Error', status: problem.status, detail: problem.detail, ...(problem.hint && { hint: problem.hint }), ...extensions };
  return withoutStack(ApplicationFailure.create({ type: problem.type, message: problem.detail, nonRetryable: true, details: [details] }));
}

/**
 * A repeated sendMessage whose message already ended `failed` or `undelivered`: the failed operation its
 * run gave the first caller, the same ApplicationFailure (type, message, details) as its cause.
 */
export function messageRunFailed(details: MessageRunFailureDetails): OperationError {
  const { outcome } = details;
  const message = messageRunFailureMessage(details);
  const cause = withoutStack(ApplicationFailure.create({ type: MessageRunFailureType[outcome], message, nonRetryable: true, details: [details] }));
  return withoutStack(new OperationError('failed', message, { cause }));
}
