import { listOwnedMessages, type MessageCursor } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { messageView } from '../../views/message';
import { findOwnedClient } from '../clients/owned-client';
import { Invalid } from '../errors';
import { MessageListQuery } from './contract';


const encodeCursor = (c: MessageCursor) => Buffer.from(JSON.stringify([c.createdAt.toISOString(), c.id])).toString('base64url');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function decodeCursor(raw: string): MessageCursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(createdAt);
    if (typeof id === 'string' && UUID.test(id) && !Number.isNaN(date.getTime())) return { createdAt: date, id };
  } catch {
    // falls through to the 400
  }
  throw new Invalid('Invalid cursor: pass next_cursor from the previous page');
}

function parseListQuery(query: unknown) {
  const parsed = MessageListQuery.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Invalid(`Invalid ${issue.path.join('.')}: ${issue.message}`);
}

/**
 * `GET /messages`: one page of the caller's messages in this business (both directions unless `direction`
 * says), newest first, with the cursor of the next. `clientId`: one client's conversation, whatever the query says.
 */
export async function listMessages(prisma: Prisma, scope: Scope, query: unknown, clientId?: string) {
  const { status, direction, client, limit, cursor } = parseListQuery(query);
  const filter = { status, direction, clientId: clientId ?? client, after: cursor ? decodeCursor(cursor) : undefined, take: limit + 1 };
  const rows = await listOwnedMessages(prisma, scope, filter);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { messages: page.map(messageView), next_cursor: rows.length > limit ? encodeCursor(last) : null };
}

/** `GET /clients/{_id}/messages`: one client's conversation, what was sent to it and what it sent; an unknown client is a 404 before the query is read. */
export async function listClientMessages(prisma: Prisma, scope: Scope, clientId: string, query: unknown) {
  const client = await findOwnedClient(prisma, scope, clientId);
  return listMessages(prisma, scope, query, client.id);
}
