import type { Prisma } from '../db/prisma';
import { notFound } from './problem';
import type { Scope } from './scope';
import { RESOURCE_ID_PATTERN } from './validation';

/** The caller's client in this business, or the same 404 whether it is missing, another's, or an impossible id. */
export async function findOwnedClient(prisma: Prisma, scope: Scope, id: string) {
  const client = RESOURCE_ID_PATTERN.test(id)
    ? await prisma.client.findUnique({ where: { business_ownerId_id: { ...scope, id } } })
    : null;
  if (!client) throw notFound('Client not found');
  return client;
}
