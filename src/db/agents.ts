import { Prisma as Db } from '../generated/prisma/client';
import type { WorkingHours } from '../domain';
import type { Prisma } from './prisma';
import { insertUnique } from './errors';
import type { Scope } from './scope';

/*
 * Every change of an `agents` row: inserted, changed (PATCH), and deleted (DELETE): the row stays as a tombstone without
 * its name, `deleted_at` set and `live_slot` NULL, so its assignments keep their history and the id is
 * free again. Only live rows are found.
 */

type Tx = Db.TransactionClient;

export interface NewAgent {
  id: string;
  name: string | null;
}

/** What PATCH /agents/{_id} may change; an absent field stays as it is. */
export interface AgentChanges {
  name?: string | null;
  timezone?: string | null;
  workingHours?: WorkingHours | null;
  presence?: string;
  capacity?: number | null;
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

/** The caller's agents with these ids, in one query. */
export function findAgents(prisma: Prisma | Tx, scope: Scope, ids: string[]) {
  return ids.length === 0 ? Promise.resolve([]) : prisma.agent.findMany({ where: { ...scope, id: { in: ids }, liveSlot: true } });
}

/** Applies the changes to the caller's agent; null when it has none with this id. */
export async function updateAgent(prisma: Prisma, scope: Scope, id: string, changes: AgentChanges) {
  const { workingHours, ...rest } = changes;
  const data = { ...rest, ...(workingHours !== undefined && { workingHours: workingHours === null ? Db.DbNull : (workingHours as Db.InputJsonObject) }) };
  const rows = await prisma.agent.updateManyAndReturn({ where: { ...scope, id, liveSlot: true }, data });
  return rows[0] ?? null;
}

/** Active assignments per agent (its load), for these agents' internal keys. */
export async function loadsOf(prisma: Prisma | Tx, agentPks: string[]): Promise<Map<string, number>> {
  if (agentPks.length === 0) return new Map();
  const counts = await prisma.assignment.groupBy({ by: ['agentPk'], where: { agentPk: { in: agentPks }, status: 'active' }, _count: { _all: true } });
  return new Map(counts.map((c) => [c.agentPk, c._count._all]));
}

/** Locks these agents' rows (in key order, so two routes never wait on each other in a cycle) until the transaction ends; an assignment's insert (its key share) is not blocked. */
export async function lockAgents(tx: Tx, agentPks: string[]): Promise<void> {
  if (agentPks.length === 0) return;
  await tx.$queryRaw`SELECT pk FROM agents WHERE pk = ANY(${[...agentPks].sort()}::uuid[]) ORDER BY pk FOR NO KEY UPDATE`;
}

/** Which of these ids are the owner's agents, in one query. */
export async function existingAgentIds(prisma: Prisma, scope: Scope, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await prisma.agent.findMany({ where: { ...scope, id: { in: ids } }, select: { id: true } });
  return new Set(rows.map((row) => row.id));
}

/** The ids of the agents with these internal keys, deleted or not. */
export async function agentIdsOf(tx: Tx, pks: string[]): Promise<string[]> {
  return (await tx.agent.findMany({ where: { pk: { in: pks } }, select: { id: true } })).map((a) => a.id);
}
