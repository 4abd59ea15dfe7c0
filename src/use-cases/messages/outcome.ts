import { findMessage, messageStatus } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import type { MessageOutcome, MessageRunFailureDetails } from '../../domain';
import { messageReason } from '../../views/message-reason';

const FINISHED_OUTCOMES: readonly string[] = ['sent', 'delivered', 'read', 'undelivered', 'failed', 'canceled', 'suppressed'] satisfies MessageOutcome[];

/** How the message ended, if it has: what its run answered, or would answer now. Undefined while it is still on its way (or unknown). */
export async function finishedOutcome(prisma: Prisma, messageId: string): Promise<MessageOutcome | undefined> {
  const status = await messageStatus(prisma, messageId);
  return status && FINISHED_OUTCOMES.includes(status) ? (status as MessageOutcome) : undefined;
}

/** What a message's failed run carries (ids, our reason and the carrier's code; never the phone or the text). */
export async function runFailureOf(prisma: Prisma, messageId: string, outcome: 'failed' | 'undelivered'): Promise<MessageRunFailureDetails> {
  const row = await findMessage(prisma, messageId);
  return { messageId, outcome, reason: row ? messageReason(row) : null, code: row?.errorCode ?? null };
}
