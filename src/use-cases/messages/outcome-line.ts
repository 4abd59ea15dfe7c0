import { logEvent } from '../../logger';
import { messageReason, type ReasonFields } from '../../views/message-reason';

/**
 * One readable log line for a message's outcome that a person should see (`message.failed`, and a
 * carrier's `message.delivered` / `message.undelivered` / `message.read`): ids, its code and our reason,
 * never the phone or the text. The expected failure is this line, not the SDK's warning about it.
 */
export function logMessageOutcome(message: ReasonFields & { id: string; business: string }, provider?: string | null): void {
  const reason = messageReason(message);
  logEvent(`message.${message.status}`, {
    id: message.id,
    business: message.business,
    ...(provider && { provider }),
    ...(message.errorCode && { code: message.errorCode }),
    ...(reason && { reason }),
  });
}
