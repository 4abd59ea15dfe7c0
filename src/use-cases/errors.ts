/*
 * What a use case refuses, with the contract's exact texts. The use cases know no door: src/api turns
 * these into problem details, src/nexus into operation errors, through the one table below.
 */

export abstract class UseCaseError extends Error {
  /** What to do about it, beside a `detail` whose words the contract fixes (`Invalid delay`); the problem's `hint`. */
  hint?: string;
  constructor(readonly detail: string) {
    super(detail);
    this.name = new.target.name;
  }
}

/** The request itself is wrong (a field, a header, an unreadable body); repeating it cannot help. */
export class Invalid extends UseCaseError {
  constructor(detail: string, readonly reason: 'invalid-request' | 'malformed-json' = 'invalid-request', hint?: string) {
    super(detail);
    if (hint) this.hint = hint;
  }
}

/** What the request names is not the caller's: missing, another's, or an impossible id all read the same. */
export class NotFound extends UseCaseError {}

/** The request clashes with what is stored: a message that has left, a full quota, an Idempotency-Key used for another request. */
export class Conflict extends UseCaseError {
  constructor(detail: string, readonly reason: 'conflict' | 'idempotency-key-reused' = 'conflict') {
    super(detail);
  }
}

/** The caller did not prove who it is (a CRM's signature or credentials that do not check out). */
export class Unauthenticated extends UseCaseError {}

/** Not done now, for a passing cause (a backing service, a workflow still running): the same request may succeed after `retryAfterSeconds`. */
export class Unavailable extends UseCaseError {
  constructor(detail: string, readonly retryAfterSeconds: number, readonly reason: 'unavailable' | 'timeout' = 'unavailable') {
    super(detail);
  }
}

/** What the request names is there, but too large for the service to relay (a carrier's file over the cap). */
export class TooLargeToRelay extends UseCaseError {}

/** A refusal as the interface document words it: problem details' status, type and detail, both doors' answer. */
export interface Refusal {
  status: number;
  type: string;
  detail: string;
  hint?: string;
  retryAfterSeconds?: number;
}

/** The one table from a use case's error to the problem both doors show. */
export function refusalOf(error: UseCaseError): Refusal {
  const { detail } = error;
  if (error instanceof Invalid) return { status: 400, type: `/problems/${error.reason}`, detail, ...(error.hint && { hint: error.hint }) };
  if (error instanceof NotFound) return { status: 404, type: '/problems/not-found', detail };
  if (error instanceof Unauthenticated) return { status: 401, type: '/problems/unauthorized', detail };
  if (error instanceof Conflict) return error.reason === 'conflict' ? { status: 409, type: '/problems/conflict', detail } : { status: 422, type: `/problems/${error.reason}`, detail };
  if (error instanceof TooLargeToRelay) return { status: 502, type: '/problems/media-too-large', detail };
  if (error instanceof Unavailable) {
    return { status: error.reason === 'timeout' ? 504 : 503, type: `/problems/${error.reason}`, detail, retryAfterSeconds: error.retryAfterSeconds };
  }
  throw new Error(`No refusal for ${error.name}`);
}
