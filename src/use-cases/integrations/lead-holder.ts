import { listClientAssignments } from '../../db/assignments';
import { findClient } from '../../db/clients';
import { findBusinessConnector } from '../../db/crm-connectors';
import { findLead, followHolder } from '../../db/crm-leads';
import { withEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import type { ProcessCrmLeadInput } from '../../domain';
import { ownerSyncFailedData } from '../../views/crm-lead';
import { agentOfCrmOwner, crmOwnerOf } from './choose-owner';
import { unmappedError } from './leads';

/*
 * An assignment of a lead's client ended (its `holder_changed` event, recorded with the ending): the
 * CRM's owner follows whoever holds the client now. Still held by the agent whose owner we wrote:
 * nothing to do. Held by others: the latest assigned of them becomes the lead's owner and is written
 * back by the lead's workflow, through the same retried write as the first owner. Held by nobody: the
 * CRM's owner is left as it is.
 */

export type HolderOutcome = 'pending' | 'unchanged' | 'unheld' | 'unmapped' | 'not_ours';

export async function followLeadHolder(deps: { prisma: Prisma }, input: ProcessCrmLeadInput): Promise<HolderOutcome> {
  const key = { business: input.business, crm: input.crm, recordId: input.recordId };
  const lead = await findLead(deps.prisma, key);
  if (!lead || ['queued', 'rejected', 'canceled'].includes(lead.writeStatus)) return 'not_ours';
  const scope = { business: lead.business, ownerId: lead.ownerId };
  const client = await findClient(deps.prisma, scope, lead.clientId);
  if (!client) return 'unheld';
  const connector = await findBusinessConnector(deps.prisma, input.business, input.crm);
  const holders = (await listClientAssignments(deps.prisma, client.pk, ['active'])).map((a) => a.agent.id);
  if (holders.length === 0) return 'unheld';
  const current = lead.crmOwnerId ? agentOfCrmOwner(connector?.agentMap, lead.crmOwnerId) : (lead.agents[0] ?? null);
  if (current && holders.includes(current)) return 'unchanged';
  const agent = holders.at(-1)!;
  const crmOwnerId = crmOwnerOf(connector?.agentMap, agent);
  return withEvents(deps.prisma, async (tx, record) => {
    if (!(await followHolder(tx, key, agent, crmOwnerId))) return 'not_ours';
    if (crmOwnerId) return 'pending';
    await record({ scope, clientPk: client.pk, clientId: lead.clientId, type: 'crm.owner_sync_failed', data: ownerSyncFailedData(lead, agent, null, unmappedError(input, agent)) });
    return 'unmapped';
  });
}
