import { messageStatus } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import type { MessageOutcome } from '../../domain';

const FINISHED_OUTCOMES: readonly string[] = ['sent', 'delivered', 'read', 'undelivered', 'failed', 'canceled', 'suppressed'] satisfies MessageOutcome[];

/** How the message ended, if it has: what its run answered, or would answer now. Undefined while it is still on its way (or unknown). */
export async function finishedOutcome(prisma: Prisma, messageId: string): Promise<MessageOutcome | undefined> {
  const status = await messageStatus(prisma, messageId);
  return status && FINISHED_OUTCOMES.includes(status) ? (status as MessageOutcome) : undefined;
}
