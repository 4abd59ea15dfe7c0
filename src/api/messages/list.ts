import { z } from 'zod';
import { listOwnedMessages, type MessageCursor } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { MESSAGE_STATUSES } from '../../domain';
import { badRequest } from '../http/problem';
import type { Scope } from '../http/scope';
import { RESOURCE_ID_PATTERN } from '../../use-cases/input/validation';
import { messageView } from '../../views/message';

export const MAX_PAGE_SIZE = 100;

const listQuery = z.object({
  status: z.enum(MESSAGE_STATUSES).optional(),
  direction: z.enum(['inbound', 'outbound']).optional(),
  client: z.string().regex(RESOURCE_ID_PATTERN).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  cursor: z.string().max(200).optional(),
});

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
  throw badRequest('Invalid cursor: pass next_cursor from the previous page');
}

function parseListQuery(query: unknown) {
  const parsed = listQuery.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw badRequest(`Invalid ${issue.path.join('.')}: ${issue.message}`);
}

/**
 * One page of the caller's messages in this business (both directions unless `direction` says), newest
 * first, with the cursor of the next. `clientId`: one client's conversation, whatever the query says.
 */
export async function listMessages(prisma: Prisma, scope: Scope, query: unknown, clientId?: string) {
  const { status, direction, client, limit, cursor } = parseListQuery(query);
  const filter = { status, direction, clientId: clientId ?? client, after: cursor ? decodeCursor(cursor) : undefined, take: limit + 1 };
  const rows = await listOwnedMessages(prisma, scope, filter);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { messages: page.map(messageView), next_cursor: rows.length > limit ? encodeCursor(last) : null };
}
