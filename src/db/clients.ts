import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import { insertUnique } from './errors';
import type { Scope } from './scope';

/*
 * Every change of a `clients` row: inserted, its name, phone or time zone changed (PATCH), and erased
 * (DELETE): the row stays as a tombstone without them, `deleted_at` set and `live_slot` NULL, so its
 * assignments and messages keep their history and the id is free again. Only live rows are found.
 */

type Tx = Db.TransactionClient;

export interface NewClient {
  id: string;
  name: string | null;
  phone: string | null;
  timezone: string | null;
}

/** The fields a PATCH may change; absent ones stay as they are. */
export type ClientChanges = Partial<Omit<NewClient, 'id'>>;

/** The caller's live client with this id in this business, or null. */
export function findClient(prisma: Prisma | Tx, scope: Scope, id: string) {
  return prisma.client.findUnique({ where: { business_ownerId_id_liveSlot: { ...scope, id, liveSlot: true } } });
}

/** Inserts the client; an id the owner already has becomes `onDuplicate()`'s error. */
export function insertClient(prisma: Prisma, scope: Scope, client: NewClient, onDuplicate: () => Error) {
  return insertUnique(() => prisma.client.create({ data: { ...scope, ...client } }), onDuplicate);
}

/** The caller's live clients with these ids, in one query. */
export function findClients(prisma: Prisma, scope: Scope, ids: string[]) {
  return ids.length === 0 ? Promise.resolve([]) : prisma.client.findMany({ where: { ...scope, liveSlot: true, id: { in: ids } } });
}

/** The position after the last client of a page: oldest first, ties broken by id. */
export type ClientCursor = { createdAt: Date; id: string };

export interface ClientFilter {
  /** Exact, E.164. */
  phone?: string;
  /** The name starts with it, case-insensitively. */
  namePrefix?: string;
  after?: ClientCursor;
  take: number;
}

/** One page of the caller's live clients in this business, oldest first. */
export function listClients(prisma: Prisma, scope: Scope, filter: ClientFilter) {
  const { phone, namePrefix, after, take } = filter;
  return prisma.client.findMany({
    where: {
      ...scope,
      liveSlot: true,
      ...(phone !== undefined && { phone }),
      // Prisma passes LIKE's wildcards through: escaped, `%` and `_` are plain characters.
      ...(namePrefix !== undefined && { name: { startsWith: namePrefix.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' } }),
      ...(after && { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }),
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take,
  });
}

/** Changes the live client's fields; null when it is gone (erased meanwhile). */
export async function updateClient(prisma: Prisma, pk: string, changes: ClientChanges) {
  const [row] = await prisma.client.updateManyAndReturn({ where: { pk, liveSlot: true }, data: changes });
  return row ?? null;
}

/** The live client, locked until the transaction ends: an erasure holds it while it ends what the client is part of. */
export async function lockLiveClient(tx: Tx, scope: Scope, id: string) {
  await tx.$queryRaw`SELECT pk FROM clients WHERE business = ${scope.business} AND owner_id = ${scope.ownerId} AND id = ${id} AND live_slot FOR UPDATE`;
  return findClient(tx, scope, id);
}

/** live → erased: the tombstone keeps its keys and dates, not its name, phone or time zone. */
export function eraseClientRow(tx: Tx, pk: string, now: Date) {
  return tx.client.update({ where: { pk }, data: { name: null, phone: null, timezone: null, deletedAt: now, liveSlot: null } });
}

/** The business and owner of the client with this internal key, or null. */
export function findClientScope(prisma: Prisma | Tx, pk: string) {
  return prisma.client.findUnique({ where: { pk }, select: { business: true, ownerId: true, id: true } });
}

/**
 * Creates the client, or brings its name, phone and time zone up to date with what another system
 * (a CRM) holds: a value it does not have leaves the stored one as it is.
 */
export function upsertClient(prisma: Prisma | Tx, scope: Scope, client: NewClient) {
  const changes = Object.fromEntries(Object.entries({ name: client.name, phone: client.phone, timezone: client.timezone }).filter(([, value]) => value !== null));
  return prisma.client.upsert({ where: { business_ownerId_id_liveSlot: { ...scope, id: client.id, liveSlot: true } }, create: { ...scope, ...client }, update: changes });
}

/** Up to two live clients of the business stored with this phone (of any owner): enough to tell one from several. */
export function liveClientsWithPhone(prisma: Prisma | Tx, business: string, phone: string) {
  return prisma.client.findMany({ where: { business, phone, liveSlot: true }, select: { pk: true, ownerId: true, name: true }, orderBy: { createdAt: 'asc' }, take: 2 });
}
