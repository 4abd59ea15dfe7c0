import type { Prisma } from '../db/prisma';
import type { ConversationClock } from '../domain';
import { stepConversationClocks } from '../use-cases/conversations/clocks';

export function createConversationActivities(deps: { prisma: Prisma }) {
  return {
    /** The client's run: snoozes that ended open their conversations, answers that came due are reported; the clocks still running. */
    async stepConversations(input: { clientPk: string }): Promise<ConversationClock[]> {
      return stepConversationClocks(deps.prisma, input.clientPk);
    },
  };
}
