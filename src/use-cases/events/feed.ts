import { findClient } from '../../db/clients';
import { listEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { eventView } from '../../views/event';
import { Invalid } from '../errors';
import { EventFeedQuery } from './contract';
import { openCursor, sealCursor } from './cursor';

function decodeCursor(key: Buffer, scope: Scope, raw: string): bigint {
  const seq = openCursor(key, scope, raw);
  if (seq === undefined) throw new Invalid('Invalid after: pass next_cursor from a previous page');
  return seq;
}

function parseFeedQuery(query: unknown) {
  const parsed = EventFeedQuery.safeParse(query);
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
