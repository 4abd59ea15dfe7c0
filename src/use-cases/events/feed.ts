import { z } from 'zod';
import { findClient } from '../../db/clients';
import { listEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { EVENT_PATTERNS } from '../../domain';
import { eventView } from '../../views/event';
import { Invalid } from '../errors';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { openCursor, sealCursor } from './cursor';

export const MAX_EVENTS_PAGE = 100;

const feedQuery = z.object({
  after: z.string().max(100).optional(),
  type: z.enum(EVENT_PATTERNS).optional(),
  client: z.string().regex(RESOURCE_ID_PATTERN, 'must be a client id').optional(),
  limit: z.coerce.number().int().min(1).max(MAX_EVENTS_PAGE).default(50),
});

function decodeCursor(key: Buffer, scope: Scope, raw: string): bigint {
  const seq = openCursor(key, scope, raw);
  if (seq === undefined) throw new Invalid('Invalid after: pass next_cursor from a previous page');
  return seq;
}

function parseFeedQuery(query: unknown) {
  const parsed = feedQuery.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Invalid(`Invalid ${issue.path.join('.')}: ${issue.message}`);
}

/**
 * The caller's events in commit order, oldest first, after `after`. `next_cursor` is where to go on
 * from — also on the last page, so a poller keeps it and asks again later; `has_more` says whether
 * more are there now.
 */
export async function listFeed(prisma: Prisma, cursorKey: Buffer, scope: Scope, query: unknown) {
  const { after, type, client, limit } = parseFeedQuery(query);
  const afterSeq = after === undefined ? undefined : decodeCursor(cursorKey, scope, after);
  const clientPk = client === undefined ? undefined : ((await findClient(prisma, scope, client))?.pk ?? null);
  // Another user's client id, or one that does not exist, simply matches nothing.
  const rows = clientPk === null ? [] : await listEvents(prisma, scope, { afterSeq, type, clientPk, take: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    events: page.map(eventView),
    next_cursor: last ? sealCursor(cursorKey, scope, last.seq) : (after ?? null),
    has_more: rows.length > limit,
  };
}
