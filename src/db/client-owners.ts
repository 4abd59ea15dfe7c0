import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import { periodInForce } from '../domain/rotation-row';
import { holdingAt } from './assignment-holds';

/** An assignment in force, as a reply's `message.received` event names it. */
export interface AssignmentInForce {
  agent: string;
  dt_until: string;
  /** Made by the client's rotation. */
  rotation: boolean;
  /** The period of the client's rotation that is in progress now is this agent's. */
  current_period: boolean;
}

/**
 * Who has the client at `now`: its active assignments whose `dt_until` is still ahead (one past it is
 * over, even before its workflow has marked it expired), oldest first, and which of them holds the
 * period of its rotation in progress.
 */
export async function assignmentsInForce(db: Prisma | Db.TransactionClient, client: { pk: string; ownerId: string }, now: Date): Promise<AssignmentInForce[]> {
  const assignments = await db.assignment.findMany({
    where: { clientPk: client.pk, ...holdingAt(now) },
    select: { agentPk: true, dtUntil: true, rotation: true, agent: { select: { id: true } } },
    orderBy: [{ createdAt: 'asc' }],
  });
  const rotation = await db.rotation.findUnique({ where: { clientPk_ownerId: { clientPk: client.pk, ownerId: client.ownerId } } });
  const current = rotation ? periodInForce(rotation, now) : null;
  return assignments.map((a) => ({
    agent: a.agent.id,
    dt_until: a.dtUntil.toISOString(),
    rotation: a.rotation,
    current_period: current !== null && current.agentPk === a.agentPk,
  }));
}
