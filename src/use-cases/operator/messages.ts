import { findMessage, type MessageWithClient } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { listUnmatchedInbound } from '../../db/unmatched-inbound';
import type { UnmatchedInbound } from '../../generated/prisma/client';
import { NotFound } from '../errors';
import { pageOf, parsePage } from '../input/page';

const MESSAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Any business's message, for the operator holding its id (from the Temporal UI): a 404 when there is none. */
export async function messageForOperator(prisma: Prisma, id: string): Promise<MessageWithClient> {
  const message = MESSAGE_ID.test(id) ? await findMessage(prisma, id) : null;
  if (!message) throw new NotFound('Message not found');
  return message;
}

/** A page of the texts no message explains, newest first (`?limit=`, `?cursor=`). */
export async function unmatchedInboundPage(prisma: Prisma, query: unknown): Promise<{ rows: UnmatchedInbound[]; nextCursor: string | null }> {
  const { limit, after } = parsePage(query);
  const { page, next_cursor: nextCursor } = pageOf(await listUnmatchedInbound(prisma, { after, take: limit + 1 }), limit, (row) => row);
  return { rows: page, nextCursor };
}
