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

/**
 * Creates the client, or brings its name, phone and time zone up to date with what another system
 * (a CRM) holds: a value it does not have leaves the stored one as it is.
 */
export function upsertClient(prisma: Prisma, scope: Scope, client: NewClient) {
  const changes = Object.fromEntries(Object.entries({ name: client.name, phone: client.phone, timezone: client.timezone }).filter(([, value]) => value !== null));
  return prisma.client.upsert({ where: { business_ownerId_id: { ...scope, id: client.id } }, create: { ...scope, ...client }, update: changes });
}
