import { z } from 'zod';
import { holdersOf, listConversations, unreadCounts, type ConversationRow } from '../../db/conversations';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { conversationView } from '../../views/conversation';
import { findOwnedAgent } from '../agents/owned-agent';
import { findOwnedClient } from '../clients/owned-client';
import { decodeCursor, encodeCursor, MAX_PAGE_SIZE, parseQuery, UUID } from '../input/page';
import { findOwnedConversation } from './owned-conversation';
import { LATEST_ITEMS, threadItems } from './thread';

const listQuery = z.object({
  status: z.enum(['open', 'snoozed', 'closed']).optional(),
  agent: z.string().max(128).optional(),
  client: z.string().max(128).optional(),
  waiting: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  cursor: z.string().max(200).optional(),
});

/** A page's position: its last conversation's activity (or waiting) time and id, in the lists' shared cursor. */
function cursorPosition(raw: string) {
  const { createdAt, id } = decodeCursor(raw, UUID);
  return { at: createdAt, id };
}

/** The views of a page of conversations: who holds each client now, and (for an agent) what it has not read. */
export async function viewsOf(prisma: Prisma, rows: ConversationRow[], agentPk: string | null, now: Date) {
  const [holders, unread] = await Promise.all([
    holdersOf(prisma, [...new Set(rows.map((r) => r.clientPk))], now),
    agentPk ? unreadCounts(prisma, rows.map((r) => r.id), agentPk) : Promise.resolve(null),
  ]);
  return rows.map((row) => conversationView(row, holders.get(row.clientPk) ?? [], unread ? (unread.get(row.id) ?? 0) : null));
}

/**
 * `GET /conversations`: a page of the caller's conversations, newest activity first; `waiting=true` only
 * those waiting for an answer, the longest waiting first. `agent`: held by that agent now, with its unread
 * counts; `client`: that client's; an agent or client the caller does not have is a 404.
 */
export async function listConversationsRequest(prisma: Prisma, scope: Scope, query: unknown) {
  const { status, agent, client, waiting, limit, cursor } = parseQuery(listQuery, query ?? {});
  const [agentRow, clientRow] = await Promise.all([agent === undefined ? null : findOwnedAgent(prisma, scope, agent), client === undefined ? null : findOwnedClient(prisma, scope, client)]);
  const now = new Date();
  const isWaiting = waiting === 'true';
  const rows = await listConversations(
    prisma,
    scope,
    { status, clientPk: clientRow?.pk, agentPk: agentRow?.pk, waiting: isWaiting, take: limit + 1, ...(cursor !== undefined && { after: cursorPosition(cursor) }) },
    now,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > limit ? encodeCursor({ createdAt: isWaiting ? last.waitingSince! : last.lastActivityAt, id: last.id }) : null;
  return { conversations: await viewsOf(prisma, page, agentRow?.pk ?? null, now), next_cursor: nextCursor };
}

/** `GET /conversations/{_id}[?agent]`: one conversation, with its latest messages and notes (newest first). */
export async function getConversationRequest(prisma: Prisma, scope: Scope, id: string, query: unknown) {
  const { agent } = parseQuery(z.object({ agent: z.string().max(128).optional() }), query ?? {});
  const conversation = await findOwnedConversation(prisma, scope, id);
  const agentRow = agent === undefined ? null : await findOwnedAgent(prisma, scope, agent);
  const [view] = await viewsOf(prisma, [conversation], agentRow?.pk ?? null, new Date());
  return { ...view, latest: (await threadItems(prisma, conversation.id, LATEST_ITEMS)).views };
}
