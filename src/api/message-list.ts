import { z } from 'zod';
import type { Prisma } from '../db/prisma';
import { messageView } from './message-view';
import { badRequest } from './problem';
import type { Scope } from './scope';
import { RESOURCE_ID_PATTERN } from './validation';

export const MAX_PAGE_SIZE = 100;

const listQuery = z.object({
  status: z.enum(['scheduled', 'sending', 'sent', 'failed', 'canceled']).optional(),
  client: z.string().regex(RESOURCE_ID_PATTERN).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  cursor: z.string().max(200).optional(),
});

/** The position after the last message of a page: newest first, ties broken by id. */
type Cursor = { createdAt: Date; id: string };

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify([c.createdAt.toISOString(), c.id])).toString('base64url');

function decodeCursor(raw: string): Cursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(createdAt);
    if (typeof id === 'string' && !Number.isNaN(date.getTime())) return { createdAt: date, id };
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

/** One page of the caller's messages in this business, newest first, with the cursor of the next. */
export async function listMessages(prisma: Prisma, scope: Scope, query: unknown) {
  const { status, client, limit, cursor } = parseListQuery(query);
  const after = cursor ? decodeCursor(cursor) : undefined;
  const rows = await prisma.message.findMany({
    where: {
      ...scope,
      ...(status && { status }),
      ...(client && { client: { id: client } }),
      ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
    },
    include: { client: { select: { id: true } } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { messages: page.map(messageView), next_cursor: rows.length > limit ? encodeCursor(last) : null };
}
