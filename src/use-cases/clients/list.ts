import { listClients } from '../../db/clients';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { clientView } from '../../views/client';
import { decodeCursor, pageOf, parseQuery } from '../input/page';
import { ClientListQuery } from './contract';

/** `GET /clients`: one page of the caller's clients in this business, oldest first, filtered by exact phone or name prefix. */
export async function listClientsRequest(prisma: Prisma, scope: Scope, query: unknown) {
  const { phone, q, limit, cursor } = parseQuery(ClientListQuery, query);
  const rows = await listClients(prisma, scope, { phone, namePrefix: q, after: cursor === undefined ? undefined : decodeCursor(cursor), take: limit + 1 });
  const { page, next_cursor } = pageOf(rows, limit, (c) => ({ createdAt: c.createdAt, id: c.id }));
  return { clients: page.map(clientView), next_cursor };
}
