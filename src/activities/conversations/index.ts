import type { ConversationClock } from '../../domain';
import { stepConversationClocks } from '../../use-cases/conversations/clocks';
import type { DatabaseDeps } from '../../use-cases/database';

export function createConversationActivities(deps: DatabaseDeps) {
  return {
    /** The client's run: snoozes that ended open their conversations, answers that came due are reported; the clocks still running. */
    async stepConversations(input: { clientPk: string }): Promise<ConversationClock[]> {
      return stepConversationClocks(deps.prisma, input.clientPk);
    },
  };
}
