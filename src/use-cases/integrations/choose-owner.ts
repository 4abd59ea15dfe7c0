import type { Prisma } from '../../db/prisma';
import { findPolicy } from '../../db/routing-policies';
import type { Scope } from '../../db/scope';
import { Invalid } from '../errors';

/*
 * Whom a new lead goes to: a connector names either its `agents` (all assigned, as assign-agents does)
 * or one of its owner's routing policies (the lead is routed by it: src/use-cases/integrations/leads.ts).
 */

/** A connector's policy must be one of the connector owner's routing policies. */
export async function refuseUnknownPolicy(prisma: Prisma, scope: Scope, policy: string | null): Promise<void> {
  if (policy !== null && !(await findPolicy(prisma, scope, policy))) throw new Invalid(`Routing policy ${policy} not found or not authorized`);
}

/** The routing request's idempotency key of a CRM record: one decision per record, however often it arrives. */
export const leadRoutingKey = (crm: string, recordId: string) => `crm-lead:${crm}:${recordId}`.slice(0, 255);

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
