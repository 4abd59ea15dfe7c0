import { loadsOf, updateAgent } from '../../db/agents';
import type { Scope } from '../../db/scope';
import { agentView } from '../../views/agent';
import { Invalid } from '../errors';
import { findOwnedAgent } from './owned-agent';
import { parseAgentPatch } from './request';
import { wakeWaitingQueues, type WakeDeps } from '../../starters/routing-queue-workflow';

/** A change of availability may free capacity (presence back, hours or capacity changed): the owner's waiting clients are looked at again. */
export type AgentDeps = WakeDeps;

/** The agent as `GET /agents/{_id}` shows it, with its load. */
export async function agentDetails(deps: AgentDeps, scope: Scope, agentId: string) {
  const agent = await findOwnedAgent(deps.prisma, scope, agentId);
  return agentView(agent, (await loadsOf(deps.prisma, [agent.pk])).get(agent.pk) ?? 0);
}

/**
 * PATCH /agents/{_id}: a JSON merge patch of its name, time zone, working hours, presence and capacity.
 * Working hours are wall-clock times, so they need the zone they are read in.
 */
export async function patchAgent(deps: AgentDeps, scope: Scope, agentId: string, body: unknown) {
  const patch = parseAgentPatch(body);
  const agent = await findOwnedAgent(deps.prisma, scope, agentId);
  const timezone = patch.timezone !== undefined ? patch.timezone : agent.timezone;
  const hours = patch.workingHours !== undefined ? patch.workingHours : agent.workingHours;
  if (hours && !timezone) throw new Invalid('Invalid working_hours: needs the agent\'s timezone (an IANA name such as Europe/Paris)');
  const updated = (await updateAgent(deps.prisma, scope, agent.id, patch)) ?? agent;
  await wakeWaitingQueues(deps, scope);
  return agentView(updated, (await loadsOf(deps.prisma, [updated.pk])).get(updated.pk) ?? 0);
}
