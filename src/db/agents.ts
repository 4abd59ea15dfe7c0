import type { Prisma } from './prisma';
import { insertUnique } from './errors';
import type { Scope } from './scope';

export interface NewAgent {
  id: string;
  name: string | null;
}

/** Inserts the agent; an id the owner already has becomes `onDuplicate()`'s error. */
export function insertAgent(prisma: Prisma, scope: Scope, agent: NewAgent, onDuplicate: () => Error) {
  return insertUnique(() => prisma.agent.create({ data: { ...scope, ...agent } }), onDuplicate);
}

export function listAgents(prisma: Prisma, scope: Scope) {
  return prisma.agent.findMany({ where: scope, orderBy: { createdAt: 'asc' } });
}

/** Which of these ids are the owner's agents, in one query. */
export async function existingAgentIds(prisma: Prisma, scope: Scope, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await prisma.agent.findMany({ where: { ...scope, id: { in: ids } }, select: { id: true } });
  return new Set(rows.map((row) => row.id));
}
