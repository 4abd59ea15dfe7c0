import type { MessageStatus } from './messages';

/*
 * Which opt-out records a user sees (docs/messages.md, opt-outs): those of phones its messages reached —
 * the carrier accepted one, or it ended in a status a carrier reports — or whose refusal the record is
 * (a carrier's failure code that made it). A message that never left shows nothing of another's record.
 * src/db/opt-outs.ts says it in SQL for the listing and an erasure's kept records.
 */

export const REVEALING_STATUSES = ['sent', 'delivered', 'read', 'undelivered'] as const satisfies readonly MessageStatus[];

export interface RevealingMessage {
  status: MessageStatus;
  providerAcceptedAt: Date | null;
  errorCode: string | null;
}

export interface OptOutSource {
  source: string;
  detail: string | null;
}

/** Whether the caller's outbound message to the record's phone makes the record visible to it. */
export function revealsOptOut(message: RevealingMessage, record: OptOutSource): boolean {
  if (message.providerAcceptedAt !== null || (REVEALING_STATUSES as readonly MessageStatus[]).includes(message.status)) return true;
  return message.status === 'failed' && record.source === 'carrier' && message.errorCode !== null && message.errorCode === record.detail;
}
