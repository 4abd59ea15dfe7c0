import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';

/* Every change of `agent_absences`: the times an agent is away, which routing reads as not eligible. */

export interface NewAbsence {
  from: Date;
  until: Date;
  note: string | null;
}

export function insertAbsence(prisma: Prisma, agentPk: string, absence: NewAbsence) {
  return prisma.agentAbsence.create({ data: { agentPk, ...absence } });
}

/** The agent's absences that have not ended by `now`, soonest first. */
export function listAbsences(prisma: Prisma, agentPk: string, now = new Date()) {
  return prisma.agentAbsence.findMany({ where: { agentPk, until: { gt: now } }, orderBy: [{ from: 'asc' }, { id: 'asc' }] });
}

/**
 * Ends one absence now: one in progress ends at `now` (kept, so its time away stays on record), one
 * still to come is removed. Null when the agent has no such absence left to end.
 */
export async function endAbsence(prisma: Prisma, agentPk: string, id: string, now = new Date()) {
  return prisma.$transaction(async (tx) => {
    const row = await tx.agentAbsence.findFirst({ where: { id, agentPk, until: { gt: now } } });
    if (!row) return null;
    if (row.from.getTime() > now.getTime()) return tx.agentAbsence.delete({ where: { id } });
    return tx.agentAbsence.update({ where: { id }, data: { until: now } });
  });
}

/** For each of these agents, the end of the absence it is in at `at` (the latest, when they overlap); absent when none. */
export async function absenceEndsAt(prisma: Prisma | Db.TransactionClient, agentPks: string[], at: Date): Promise<Map<string, Date>> {
  if (agentPks.length === 0) return new Map();
  const rows = await prisma.agentAbsence.groupBy({ by: ['agentPk'], where: { agentPk: { in: agentPks }, from: { lte: at }, until: { gt: at } }, _max: { until: true } });
  return new Map(rows.map((r) => [r.agentPk, r._max.until!]));
}
