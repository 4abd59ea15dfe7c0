import { findConversation, type ConversationRow } from '../../db/conversations';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { UUID } from '../input/page';
import { NotFound } from '../errors';

export const CONVERSATION_NOT_FOUND = 'Conversation not found';

/** The caller's conversation, or the same 404 whether it is missing, another's, or an impossible id. */
export async function findOwnedConversation(prisma: Prisma, scope: Scope, id: string): Promise<ConversationRow> {
  const conversation = UUID.test(id) ? await findConversation(prisma, scope, id) : null;
  if (!conversation) throw new NotFound(CONVERSATION_NOT_FOUND);
  return conversation;
}
