import type { Prisma } from './prisma';
import { insertUnique } from './errors';
import type { Scope } from './scope';

export interface NewClient {
  id: string;
  name: string | null;
  phone: string | null;
  timezone: string | null;
}

/** The caller's client with this id in this business, or null. */
export function findClient(prisma: Prisma, scope: Scope, id: string) {
  return prisma.client.findUnique({ where: { business_ownerId_id: { ...scope, id } } });
}

/** Inserts the client; an id the owner already has becomes `onDuplicate()`'s error. */
export function insertClient(prisma: Prisma, scope: Scope, client: NewClient, onDuplicate: () => Error) {
  return insertUnique(() => prisma.client.create({ data: { ...scope, ...client } }), onDuplicate);
}

/** The caller's clients with these ids, in one query. */
export function findClients(prisma: Prisma, scope: Scope, ids: string[]) {
  return ids.length === 0 ? Promise.resolve([]) : prisma.client.findMany({ where: { ...scope, id: { in: ids } } });
}

/** The business and owner of the client with this internal key, or null. */
export function findClientScope(prisma: Prisma, pk: string) {
  return prisma.client.findUnique({ where: { pk }, select: { business: true, ownerId: true } });
}
