import type { AssignmentClock } from '../domain';
import type { Prisma } from './prisma';

/* The clocks a client's run holds: its client's active assignment rows, read and taken over. */

/** The client's active assignments, earliest dt_until first. */
export async function listActiveClocks(prisma: Prisma, clientPk: string): Promise<AssignmentClock[]> {
  const rows = await prisma.assignment.findMany({
    where: { clientPk, status: 'active' },
    select: { agentPk: true, dtUntil: true, agent: { select: { id: true } } },
    orderBy: [{ dtUntil: 'asc' }, { agentPk: 'asc' }],
  });
  return rows.map((row) => ({ agentId: row.agent.id, agentPk: row.agentPk, dtUntil: row.dtUntil.toISOString() }));
}

/**
 * Puts every active assignment of the client under `workflowId` (the client's run) and returns the ids
 * of the runs that held them before (per-pair runs of an older build), for them to be told to re-read.
 */
export async function takeOverActiveRows(prisma: Prisma, clientPk: string, workflowId: string): Promise<string[]> {
  const others = await prisma.assignment.findMany({ where: { clientPk, status: 'active', NOT: { workflowId } }, select: { id: true, workflowId: true } });
  if (others.length === 0) return [];
  await prisma.assignment.updateMany({ where: { id: { in: others.map((row) => row.id) }, status: 'active' }, data: { workflowId } });
  return [...new Set(others.map((row) => row.workflowId))];
}

/** The client's active assignments whose date has come (`now` or before). */
export async function listDueAssignments(prisma: Prisma, clientPk: string, now: Date): Promise<{ agentPk: string }[]> {
  return prisma.assignment.findMany({ where: { clientPk, status: 'active', dtUntil: { lte: now } }, select: { agentPk: true } });
}
