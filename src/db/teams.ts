import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/* Every change of `teams`: a user's team and its members, in order; a deleted agent taken out; a team deleted. */

type Tx = Db.TransactionClient;

export interface TeamMember {
  agent: string;
  weight: number;
}

/** Creates or replaces the caller's team; `created` when it is new. */
export async function putTeam(prisma: Prisma, scope: Scope, id: string, team: { name: string | null; members: TeamMember[] }) {
  const key = { business_ownerId_id: { ...scope, id } };
  const data = { name: team.name, members: team.members as unknown as Db.InputJsonArray };
  return prisma.team.upsert({ where: key, create: { ...scope, id, ...data }, update: data });
}

export function findTeam(prisma: Prisma | Db.TransactionClient, scope: Scope, id: string) {
  return prisma.team.findUnique({ where: { business_ownerId_id: { ...scope, id } } });
}

export function listTeams(prisma: Prisma, scope: Scope) {
  return prisma.team.findMany({ where: scope, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

export const membersOf = (team: { members: Db.JsonValue }) => team.members as unknown as TeamMember[];

/** A deleted agent leaves every team of its owner (so an agent made later with its id joins none by itself). */
export async function removeAgentFromTeams(tx: Tx, scope: Scope, agentId: string): Promise<void> {
  const teams = await tx.team.findMany({ where: { ...scope, members: { array_contains: [{ agent: agentId }] } } });
  for (const team of teams) {
    const members = membersOf(team).filter((m) => m.agent !== agentId);
    await tx.team.update({ where: { pk: team.pk }, data: { members: members as unknown as Db.InputJsonArray } });
  }
}

/** Deletes the caller's team; false when it has none with this id. */
export async function deleteTeamRow(tx: Tx, scope: Scope, id: string): Promise<boolean> {
  return (await tx.team.deleteMany({ where: { ...scope, id } })).count > 0;
}
