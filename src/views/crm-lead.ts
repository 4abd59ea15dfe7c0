/* The `data` of the CRM owner events (`crm.owner_conflict`, `crm.owner_sync_failed`), the lead they are about first. */

export interface LeadRef {
  clientId: string;
  crm: string;
  recordId: string;
}

export const ownerSyncFailedData = (lead: LeadRef, agent: string | null, crmOwnerId: string | null, error: string) => ({
  client: lead.clientId,
  crm: lead.crm,
  record_id: lead.recordId,
  agent,
  crm_owner_id: crmOwnerId,
  error,
  reason: 'rule' as const,
});

export const ownerConflictData = (
  lead: LeadRef,
  ours: { agent: string | null; crmOwnerId: string | null },
  theirs: { agent: string | null; crmOwnerId: string | null },
  followed: boolean,
) => ({
  client: lead.clientId,
  crm: lead.crm,
  record_id: lead.recordId,
  agent: ours.agent,
  crm_owner_id: ours.crmOwnerId,
  crm_agent: theirs.agent,
  crm_owner_id_now: theirs.crmOwnerId,
  followed,
  reason: 'rule' as const,
});
