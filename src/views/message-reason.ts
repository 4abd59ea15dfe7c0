import type { Message } from '../generated/prisma/client';

export type ReasonFields = Pick<Message, 'status' | 'error' | 'errorCode' | 'suppressedReason' | 'canceledBy'>;

/**
 * Why a message ended as it did, in words: the run's details in Temporal and the operator's view. Built
 * from what the service itself wrote (its error texts name a code and our words, never the carrier's
 * answer, the phone or the text), so it may be shown wherever ids may. Null while nothing went wrong.
 */
export function messageReason(m: ReasonFields): string | null {
  switch (m.status) {
    case 'failed':
    case 'undelivered':
      return m.error ?? (m.errorCode ? `error ${m.errorCode}` : null);
    case 'suppressed':
      return m.suppressedReason;
    case 'canceled':
      return m.canceledBy === 'operator' ? 'canceled by an operator' : m.canceledBy === 'api' ? 'canceled by its user' : null;
    default:
      return null;
  }
}
