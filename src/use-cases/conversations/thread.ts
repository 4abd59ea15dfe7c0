import { z } from 'zod';
import { threadPage } from '../../db/conversation-notes';
import { messagesByIds } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { noteView } from '../../views/conversation';
import { messageView } from '../../views/message';
import { decodeCursor, encodeCursor, MAX_PAGE_SIZE, parseQuery, UUID } from '../input/page';
import { findOwnedConversation } from './owned-conversation';

/** How many of the latest items `GET /conversations/{_id}` shows. */
export const LATEST_ITEMS = 20;

const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  cursor: z.string().max(200).optional(),
});

/** A page of a conversation's thread, newest first: its messages as `GET /messages/{_id}` shows them, and its notes (`internal: true`). */
export async function threadItems(prisma: Prisma, conversationId: string, take: number, before?: { createdAt: Date; id: string }) {
  const items = await threadPage(prisma, conversationId, take, before && { at: before.createdAt, id: before.id });
  const messageIds = items.flatMap((item) => (item.kind === 'message' ? [item.id] : []));
  const messages = new Map((await messagesByIds(prisma, messageIds)).map((m) => [m.id, m]));
  return {
    items,
    views: items.map((item) => (item.kind === 'note' ? noteView(item.note) : messageView(messages.get(item.id)!))),
  };
}

/** `GET /conversations/{_id}/messages`: the thread, newest first, a page at a time. */
export async function listThreadRequest(prisma: Prisma, scope: Scope, id: string, query: unknown) {
  const { limit, cursor } = parseQuery(pageQuery, query ?? {});
  const before = cursor === undefined ? undefined : decodeCursor(cursor, UUID);
  const conversation = await findOwnedConversation(prisma, scope, id);
  const { items, views } = await threadItems(prisma, conversation.id, limit + 1, before);
  const last = items[Math.min(limit, items.length) - 1];
  return { messages: views.slice(0, limit), next_cursor: items.length > limit ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
}
