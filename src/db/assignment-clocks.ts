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
 * The client's active assignments, earliest dt_until first, every one of them put under `workflowId` (the
 * client's run); `replaced` names the runs that rows named before (data from before one run per client).
 * One read when the run holds them all already.
 */
export async function takeOverActiveClocks(prisma: Prisma, clientPk: string, workflowId: string): Promise<{ clocks: AssignmentClock[]; replaced: string[] }> {
  const rows = await prisma.assignment.findMany({
    where: { clientPk, status: 'active' },
    select: { id: true, agentPk: true, dtUntil: true, workflowId: true, agent: { select: { id: true } } },
    orderBy: [{ dtUntil: 'asc' }, { agentPk: 'asc' }],
  });
  const others = rows.filter((row) => row.workflowId !== workflowId);
  if (others.length > 0) await prisma.assignment.updateMany({ where: { id: { in: others.map((row) => row.id) }, status: 'active' }, data: { workflowId } });
  return {
    clocks: rows.map((row) => ({ agentId: row.agent.id, agentPk: row.agentPk, dtUntil: row.dtUntil.toISOString() })),
    replaced: [...new Set(others.map((row) => row.workflowId))],
  };
}

/** The client's active assignments whose date has come (`now` or before). */
export async function listDueAssignments(prisma: Prisma, clientPk: string, now: Date): Promise<{ agentPk: string }[]> {
  return prisma.assignment.findMany({ where: { clientPk, status: 'active', dtUntil: { lte: now } }, select: { agentPk: true } });
}
