import { z } from 'zod';
import { Invalid } from '../errors';

/** Where a page newest first stops: the last row's creation time, ties broken by id. */
export interface PageCursor {
  createdAt: Date;
  id: string;
}

export const MAX_PAGE_LIMIT = 100;

const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(50),
  cursor: z.string().max(200).optional(),
});
const LIMIT_RULE = `must be a whole number from 1 to ${MAX_PAGE_LIMIT}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const encodePageCursor = (c: PageCursor) => Buffer.from(JSON.stringify([c.createdAt.toISOString(), c.id])).toString('base64url');

function decodePageCursor(raw: string): PageCursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(createdAt);
    if (typeof id === 'string' && UUID.test(id) && !Number.isNaN(date.getTime())) return { createdAt: date, id };
  } catch {
    // falls through to the 400
  }
  throw new Invalid('Invalid cursor: pass next_cursor from the previous page');
}

/** `?limit=` (1-100, 50 by default) and `?cursor=` (a previous page's `next_cursor`) of a list newest first; other parameters are ignored. */
export function parsePage(query: unknown): { limit: number; after?: PageCursor } {
  const parsed = pageQuery.safeParse(query ?? {});
  if (!parsed.success) {
    const field = String(parsed.error.issues[0].path[0]);
    throw new Invalid(field === 'limit' ? `Invalid limit: ${LIMIT_RULE}` : 'Invalid cursor: pass next_cursor from the previous page');
  }
  return { limit: parsed.data.limit, ...(parsed.data.cursor !== undefined && { after: decodePageCursor(parsed.data.cursor) }) };
}

/** One page from rows fetched with `take: limit + 1`, and the cursor of the next when there is more. */
export function pageOf<T extends PageCursor>(rows: T[], limit: number): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  return { page, nextCursor: rows.length > limit ? encodePageCursor(page[page.length - 1]) : null };
}

