import type { Prisma as Db } from '../../generated/prisma/client';
import { absenceEndsAt } from '../../db/agent-absences';
import { findAgents, loadsOf, lockAgents } from '../../db/agents';
import type { Scope } from '../../db/scope';
import { findTeam, membersOf } from '../../db/teams';
import type { MemberState, Presence, WorkingHours } from '../../domain';

export type Member = MemberState & { pk: string; absenceEnds: Date | null };

/** The team's members as routing sees them at `at` (agents that no longer exist are left out), their rows locked. */
export async function readMembers(tx: Db.TransactionClient, scope: Scope, team: string, at: Date): Promise<Member[]> {
  const teamRow = await findTeam(tx, scope, team);
  const listed = teamRow ? membersOf(teamRow) : [];
  const agents = new Map((await findAgents(tx, scope, listed.map((m) => m.agent))).map((a) => [a.id, a]));
  const present = listed.filter((m) => agents.has(m.agent));
  const pks = present.map((m) => agents.get(m.agent)!.pk);
  await lockAgents(tx, pks);
  // One after the other: a transaction is one connection.
  const loads = await loadsOf(tx, pks);
  const absences = await absenceEndsAt(tx, pks, at);
  return present.map((m) => {
    const a = agents.get(m.agent)!;
    return {
      pk: a.pk,
      agentId: a.id,
      weight: m.weight,
      presence: a.presence as Presence,
      absent: absences.has(a.pk),
      absenceEnds: absences.get(a.pk) ?? null,
      timezone: a.timezone,
      workingHours: a.workingHours as WorkingHours | null,
      capacity: a.capacity,
      load: loads.get(a.pk) ?? 0,
    };
  });
}
