import type { CrmConnector } from '../../generated/prisma/client';
import { Invalid } from '../errors';

/*
 * Whom a new lead goes to: the one seam between the connectors and lead routing. Until routing
 * policies exist here, a connector names its `agents` and all of them are assigned, as assign-agents
 * does; a policy (issue "Lead routing") plugs in here and in `refuseUnavailablePolicy`.
 */

export const POLICIES_UNAVAILABLE = 'Routing policies are not available yet: name the agents to assign in agents';

/** A connector naming a routing policy is refused while this service has no routing. */
export function refuseUnavailablePolicy(policy: string | null): void {
  if (policy !== null) throw new Invalid(POLICIES_UNAVAILABLE);
}

export interface OwnerChoice {
  /** The agents to assign, in the connector's order; the first is the one whose CRM owner is written back. */
  agents: string[];
}

export interface LeadClient {
  id: string;
  timezone: string | null;
}

export function chooseOwner(connector: Pick<CrmConnector, 'agents' | 'policy'>, _client: LeadClient): OwnerChoice {
  return { agents: [...connector.agents] };
}

/** The CRM owner id `agent_map` gives the agent, or null when it names none. */
export function crmOwnerOf(agentMap: unknown, agentId: string): string | null {
  const entries = Object.entries((agentMap ?? {}) as Record<string, string>);
  return entries.find(([, agent]) => agent === agentId)?.[0] ?? null;
}

/** The agent `agent_map` gives a CRM owner id, or null. */
export function agentOfCrmOwner(agentMap: unknown, crmOwnerId: string): string | null {
  const map = (agentMap ?? {}) as Record<string, string>;
  return Object.hasOwn(map, crmOwnerId) ? map[crmOwnerId] : null;
}
