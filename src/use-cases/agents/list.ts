import { listAgents, loadsOf } from '../../db/agents';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { agentView } from '../../views/agent';

/** `GET /agents`: the caller's agents in this business, oldest first, each with its load. */
export async function listAgentsRequest(prisma: Prisma, scope: Scope) {
  const agents = await listAgents(prisma, scope);
  const loads = await loadsOf(prisma, agents.map((a) => a.pk));
  return { agents: agents.map((a) => agentView(a, loads.get(a.pk) ?? 0)) };
}
