import type { MessageStatus } from './messages';

/*
 * Which of our messages a client's reply can answer: one the carrier took — `sent`, `delivered` or
 * `read`, or still `sending` with the carrier's acceptance recorded (a reply may beat the run's own mark).
 * A message the carrier refused, could not deliver or has not taken yet never reached the phone, so it
 * must not claim the phone's replies (nor its STOP). src/db/messages/inbound.ts says it as a query.
 */

export const ANSWERABLE_STATUSES = ['sent', 'delivered', 'read'] as const satisfies readonly MessageStatus[];
/** Answerable once the carrier's acceptance is recorded. */
export const ANSWERABLE_WHEN_ACCEPTED: MessageStatus = 'sending';

export interface AnswerableFields {
  status: MessageStatus;
  providerAcceptedAt: Date | null;
}

export function canBeAnswered(message: AnswerableFields): boolean {
  return (ANSWERABLE_STATUSES as readonly MessageStatus[]).includes(message.status) || (message.status === ANSWERABLE_WHEN_ACCEPTED && message.providerAcceptedAt !== null);
}
