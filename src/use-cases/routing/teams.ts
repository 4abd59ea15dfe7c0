import { findAgents } from '../../db/agents';
import type { Scope } from '../../db/scope';
import { findTeam, listTeams, putTeam } from '../../db/teams';
import { teamView } from '../../views/team';
import { Invalid, NotFound } from '../errors';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { parseTeamRequest } from './request';
import { wakeWaitingQueues, type WakeDeps } from '../../starters/routing-queue-workflow';

/** New members may take waiting clients: the owner's queues are looked at again. */
export type TeamDeps = WakeDeps;

/** PUT /teams/{_id}: every member must be one of the caller's agents (400 naming the first that is not). */
export async function putTeamRequest(deps: TeamDeps, scope: Scope, teamId: string, body: unknown) {
  if (!RESOURCE_ID_PATTERN.test(teamId)) throw new Invalid('Invalid _id: must be 1-128 characters of A-Z a-z 0-9 . _ : @ -');
  const team = parseTeamRequest(body);
  const known = new Set((await findAgents(deps.prisma, scope, team.members.map((m) => m.agent))).map((a) => a.id));
  const missing = team.members.find((m) => !known.has(m.agent));
  if (missing) throw new Invalid(`Agent ${missing.agent} not found or not authorized`);
  const stored = await putTeam(deps.prisma, scope, teamId, team);
  await wakeWaitingQueues(deps, scope);
  return teamView(stored);
}

export async function teamDetails(deps: TeamDeps, scope: Scope, teamId: string) {
  const team = RESOURCE_ID_PATTERN.test(teamId) ? await findTeam(deps.prisma, scope, teamId) : null;
  if (!team) throw new NotFound('Team not found');
  return teamView(team);
}

export async function teamList(deps: TeamDeps, scope: Scope) {
  return { teams: (await listTeams(deps.prisma, scope)).map(teamView) };
}
