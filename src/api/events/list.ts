import { z } from 'zod';
import { findClient } from '../../db/clients';
import { listEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import { EVENT_PATTERNS } from '../../domain';
import { badRequest } from '../http/problem';
import type { Scope } from '../http/scope';
import { RESOURCE_ID_PATTERN } from '../../use-cases/input/validation';
import { eventView } from './view';

export const MAX_EVENTS_PAGE = 100;

const feedQuery = z.object({
  after: z.string().max(100).optional(),
  type: z.enum(EVENT_PATTERNS).optional(),
  client: z.string().regex(RESOURCE_ID_PATTERN, 'must be a client id').optional(),
  limit: z.coerce.number().int().min(1).max(MAX_EVENTS_PAGE).default(50),
});

/** A position in the feed: opaque to the caller, the last event's `seq` inside. */
const encodeCursor = (seq: bigint) => Buffer.from(`e${seq}`).toString('base64url');

function decodeCursor(raw: string): bigint {
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  if (/^e\d{1,19}$/.test(text)) return BigInt(text.slice(1));
  throw badRequest('Invalid after: pass next_cursor from a previous page');
}

function parseFeedQuery(query: unknown) {
  const parsed = feedQuery.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw badRequest(`Invalid ${issue.path.join('.')}: ${issue.message}`);
}

/**
 * The caller's events in commit order, oldest first, after `after`. `next_cursor` is where to go on
 * from — also on the last page, so a poller keeps it and asks again later; `has_more` says whether
 * more are there now.
 */
export async function listFeed(prisma: Prisma, scope: Scope, query: unknown) {
  const { after, type, client, limit } = parseFeedQuery(query);
  const afterSeq = after === undefined ? undefined : decodeCursor(after);
  const clientPk = client === undefined ? undefined : ((await findClient(prisma, scope, client))?.pk ?? null);
  // Another user's client id, or one that does not exist, simply matches nothing.
  const rows = clientPk === null ? [] : await listEvents(prisma, scope, { afterSeq, type, clientPk, take: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    events: page.map(eventView),
    next_cursor: last ? encodeCursor(last.seq) : (after ?? null),
    has_more: rows.length > limit,
  };
}
