import { z } from 'zod';
import { Invalid } from '../errors';
import { RESOURCE_ID_PATTERN } from './validation';

/*
 * The paging of the lists that go oldest first (`GET /clients`, `GET /agents/{_id}/clients`): `limit`
 * (1–100, 50 by default) and `cursor`, the `next_cursor` of the page before, as `GET /messages` pages.
 * A cursor is the last item's creation time and id, opaque to the caller.
 */

export const MAX_PAGE_SIZE = 100;

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  cursor: z.string().max(200).optional().meta({ description: 'The `next_cursor` of the previous page.' }),
};

export type Position = { createdAt: Date; id: string };

export const INVALID_CURSOR = 'Invalid cursor: pass next_cursor from the previous page';

export const encodeCursor = (p: Position) => Buffer.from(JSON.stringify([p.createdAt.toISOString(), p.id])).toString('base64url');

/** The position a cursor names; `id` is a resource id or, with `uuid`, an internal key. */
export function decodeCursor(raw: string, idPattern: RegExp = RESOURCE_ID_PATTERN): Position {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(createdAt);
    if (typeof id === 'string' && idPattern.test(id) && !Number.isNaN(date.getTime())) return { createdAt: date, id };
  } catch {
    // falls through to the 400
  }
  throw new Invalid(INVALID_CURSOR);
}

/** Parses a list's query string or throws a 400 naming the first bad parameter. */
export function parseQuery<T extends z.ZodType>(schema: T, query: unknown): z.output<T> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Invalid(`Invalid ${issue.path.join('.')}: ${issue.message}`);
}

/** The page (`take` was limit + 1) and the cursor of the next, null on the last. */
export function pageOf<T>(rows: T[], limit: number, positionOf: (row: T) => Position): { page: T[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  return { page, next_cursor: rows.length > limit ? encodeCursor(positionOf(page[page.length - 1])) : null };
}

export const LIMIT_RULE = `must be a whole number from 1 to ${MAX_PAGE_SIZE}`;
/** An internal key (a UUID), as lists keyed by them and their cursors name it. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `?limit=` and `?cursor=` of a list keyed by internal ids (batches, unmatched inbound texts); other parameters are ignored. */
export function parsePage(query: unknown): { limit: number; after?: Position } {
  const parsed = z.object(pageQuery).safeParse(query ?? {});
  if (!parsed.success) throw new Invalid(parsed.error.issues[0].path[0] === 'limit' ? `Invalid limit: ${LIMIT_RULE}` : INVALID_CURSOR);
  return { limit: parsed.data.limit, ...(parsed.data.cursor !== undefined && { after: decodeCursor(parsed.data.cursor, UUID) }) };
}
