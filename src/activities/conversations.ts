import type { Prisma } from '../db/prisma';
import type { SnoozeClock } from '../domain';
import { stepConversationClocks } from '../use-cases/conversations/clocks';

export function createConversationActivities(deps: { prisma: Prisma }) {
  return {
    /** The client's run: snoozes that ended open their conversations; the snoozes still running. */
    async stepConversations(input: { clientPk: string }): Promise<SnoozeClock[]> {
      return stepConversationClocks(deps.prisma, input.clientPk);
    },
  };
}
