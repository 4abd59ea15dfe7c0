import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import { insertUnique } from './errors';
import type { Scope } from './scope';

/*
 * Every change of an `agents` row: inserted, and deleted (DELETE): the row stays as a tombstone without
 * its name, `deleted_at` set and `live_slot` NULL, so its assignments keep their history and the id is
 * free again. Only live rows are found.
 */

type Tx = Db.TransactionClient;

export interface NewAgent {
  id: string;
  name: string | null;
}

/** Inserts the agent; an id the owner already has becomes `onDuplicate()`'s error. */
export function insertAgent(prisma: Prisma, scope: Scope, agent: NewAgent, onDuplicate: () => Error) {
  return insertUnique(() => prisma.agent.create({ data: { ...scope, ...agent } }), onDuplicate);
}

export function listAgents(prisma: Prisma, scope: Scope) {
  return prisma.agent.findMany({ where: { ...scope, liveSlot: true }, orderBy: { createdAt: 'asc' } });
}

/** The caller's live agent with this id in this business, or null. */
export function findAgent(prisma: Prisma | Tx, scope: Scope, id: string) {
  return prisma.agent.findUnique({ where: { business_ownerId_id_liveSlot: { ...scope, id, liveSlot: true } } });
}

/** live → deleted, if it still is live; null otherwise. Locks the row until the transaction ends. */
export async function deleteAgentRow(tx: Tx, pk: string, now: Date) {
  const [row] = await tx.agent.updateManyAndReturn({ where: { pk, liveSlot: true }, data: { name: null, deletedAt: now, liveSlot: null } });
  return row ?? null;
}
