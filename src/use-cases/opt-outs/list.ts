import { listVisibleOptOuts } from '../../db/opt-outs';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { optOutView } from '../../views/opt-out';
import { Invalid } from '../errors';
import { OptOutListQuery } from './contract';

type Position = { phone: string; sender: string; channel?: string };

const encodeCursor = (p: Position) => Buffer.from(JSON.stringify([p.phone, p.sender, p.channel])).toString('base64url');

/** A cursor from before channels names no channel: it reads on from the first channel of that record. */
function decodeCursor(raw: string): Position {
  try {
    const [phone, sender, channel] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as [unknown, unknown, unknown];
    if (typeof phone === 'string' && typeof sender === 'string') return { phone, sender, ...(typeof channel === 'string' && { channel }) };
  } catch {
    // falls through to the 400
  }
  throw new Invalid('Invalid cursor: pass next_cursor from the previous page');
}

/** `GET /opt-outs[?phone]`: one page of the opt-out records of numbers the caller has texted (listVisibleOptOuts says what counts). */
export async function listOptOutsRequest(prisma: Prisma, scope: Scope, query: unknown) {
  const parsed = OptOutListQuery.safeParse(query);
  if (!parsed.success) throw new Invalid(`Invalid ${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}`);
  const { phone, limit, cursor } = parsed.data;
  const rows = await listVisibleOptOuts(prisma, scope, { phone, take: limit + 1, after: cursor ? decodeCursor(cursor) : undefined });
  const page = rows.slice(0, limit);
  return { opt_outs: page.map(optOutView), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null };
}
