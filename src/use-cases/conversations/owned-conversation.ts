import { findConversation, type ConversationRow } from '../../db/conversations';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { NotFound } from '../errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const CONVERSATION_NOT_FOUND = 'Conversation not found';

/** The caller's conversation, or the same 404 whether it is missing, another's, or an impossible id. */
export async function findOwnedConversation(prisma: Prisma, scope: Scope, id: string): Promise<ConversationRow> {
  const conversation = UUID.test(id) ? await findConversation(prisma, scope, id) : null;
  if (!conversation) throw new NotFound(CONVERSATION_NOT_FOUND);
  return conversation;
}
