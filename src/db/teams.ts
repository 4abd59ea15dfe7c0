import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/* Every change of `teams`: a user's team and its members, in order. */

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
