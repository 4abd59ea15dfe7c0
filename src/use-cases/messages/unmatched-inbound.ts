import type { Prisma } from '../../db/prisma';
import { listUnmatchedInbound } from '../../db/unmatched-inbound';
import type { UnmatchedInbound } from '../../generated/prisma/client';
import { pageOf, parsePage } from '../input/page';

/**
 * A page of the texts no message explains, newest first (`?limit=`, `?cursor=`): every one for the
 * operator, those sent to its own numbers for a business (a reply several of its users could own among
 * them: the business's, though none of its users is told of it).
 */
export async function unmatchedInboundPage(prisma: Prisma, query: unknown, business?: string): Promise<{ rows: UnmatchedInbound[]; nextCursor: string | null }> {
  const { limit, after } = parsePage(query);
  const { page, next_cursor: nextCursor } = pageOf(await listUnmatchedInbound(prisma, { business, after, take: limit + 1 }), limit, (row) => row);
  return { rows: page, nextCursor };
}
