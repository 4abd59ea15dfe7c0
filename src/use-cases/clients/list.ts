import { z } from 'zod';
import { listClients } from '../../db/clients';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { clientView } from '../../views/client';
import { decodeCursor, pageOf, pageQuery, parseQuery } from '../input/page';
import { normalisePhone } from '../input/validation';

const listQuery = z.object({
  phone: z
    .string()
    .max(64)
    .transform((raw, ctx) => normalisePhone(raw) ?? (ctx.addIssue({ code: 'custom', message: 'must be an E.164 phone number such as +14155550123' }), z.NEVER))
    .optional(),
  q: z.string().min(1, 'must not be empty').max(200).optional(),
  ...pageQuery,
});

/** `GET /clients`: one page of the caller's clients in this business, oldest first, filtered by exact phone or name prefix. */
export async function listClientsRequest(prisma: Prisma, scope: Scope, query: unknown) {
  const { phone, q, limit, cursor } = parseQuery(listQuery, query);
  const rows = await listClients(prisma, scope, { phone, namePrefix: q, after: cursor === undefined ? undefined : decodeCursor(cursor), take: limit + 1 });
  const { page, next_cursor } = pageOf(rows, limit, (c) => ({ createdAt: c.createdAt, id: c.id }));
  return { clients: page.map(clientView), next_cursor };
}
