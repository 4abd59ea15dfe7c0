import { Router } from 'express';
import { z } from 'zod';
import type { OptOut } from '../../generated/prisma/client';
import { listVisibleOptOuts } from '../../db/opt-outs';
import type { Prisma } from '../../db/prisma';
import { phoneNumber } from '../../use-cases/input/validation';
import { badRequest } from '../http/problem';
import { scopeOf } from '../http/scope';

export interface OptOutRoutesDeps {
  prisma: Prisma;
}

const MAX_PAGE_SIZE = 100;

const listQuery = z.object({
  // A `+` left unencoded in a query string arrives as a space.
  phone: z.string().transform((raw) => raw.replace(/^ (?=\d)/, '+')).pipe(phoneNumber).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  cursor: z.string().max(300).optional(),
});

type Position = { phone: string; sender: string };

const encodeCursor = (p: Position) => Buffer.from(JSON.stringify([p.phone, p.sender])).toString('base64url');

function decodeCursor(raw: string): Position {
  try {
    const [phone, sender] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof phone === 'string' && typeof sender === 'string') return { phone, sender };
  } catch {
    // falls through to the 400
  }
  throw badRequest('Invalid cursor: pass next_cursor from the previous page');
}

const optOutView = (o: OptOut) => ({
  phone: o.phone,
  sender: o.sender,
  status: o.status,
  source: o.source,
  detail: o.detail,
  opted_out_at: o.optedOutAt.toISOString(),
  opted_in_at: o.optedInAt?.toISOString() ?? null,
  updated_at: o.updatedAt.toISOString(),
});

/** `GET /opt-outs[?phone]`: the opt-out records of numbers the caller has texted (listVisibleOptOuts says what counts). */
export function optOutsRouter({ prisma }: OptOutRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.get('/opt-outs', async (req, res) => {
    const parsed = listQuery.safeParse(req.query);
    if (!parsed.success) throw badRequest(`Invalid ${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}`);
    const { phone, limit, cursor } = parsed.data;
    const rows = await listVisibleOptOuts(prisma, scopeOf(req), { phone, take: limit + 1, after: cursor ? decodeCursor(cursor) : undefined });
    const page = rows.slice(0, limit);
    res.json({ opt_outs: page.map(optOutView), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null });
  });
  return router;
}
