import { defineSignal } from '@temporalio/workflow';

/*
 * New leads from external CRMs: the CRMs a business may connect, the lead workflow's name, id, input
 * and signal, and its failure types. Ids only: a lead's name and phone stay in PostgreSQL.
 */

export const CRMS = ['hubspot', 'salesforce', 'pipedrive'] as const;
export type Crm = (typeof CRMS)[number];

/**
 * What a record's event asks for: a record to route (`created`), its owner changed in the CRM, or (recorded
 * here, not by the CRM) an assignment of its client ended, so the owner follows the new holder.
 */
export const CRM_INBOUND_KINDS = ['created', 'owner_changed', 'holder_changed'] as const;
export type CrmInboundKind = (typeof CRM_INBOUND_KINDS)[number];

/** A lead's client id here: `hubspot:123`, `salesforce:00Q…`, `pipedrive:42`. */
/** What a lead's owner write-back is at: routed and waiting (`queued`), refused or dropped by routing, or the CRM's owner to write. */
export const LEAD_WRITE_STATUSES = ['pending', 'unmapped', 'written', 'failed', 'queued', 'rejected', 'canceled'] as const;
export type LeadWriteStatus = (typeof LEAD_WRITE_STATUSES)[number];
/** A lead routing still holds (queued) or that routing ended without an owner does not follow its client's holder. */
export const LEAD_NOT_FOLLOWING: readonly LeadWriteStatus[] = ['queued', 'rejected', 'canceled'];

/** Whether a lead at `status` takes its client's new holder as its owner to write back. */
export const leadFollowsHolder = (status: LeadWriteStatus): boolean => !LEAD_NOT_FOLLOWING.includes(status);

/** A lead that followed a holder: its owner to write (`pending`), or `unmapped` when the agent has no CRM owner. */
export const followedWriteStatus = (crmOwnerId: string | null): LeadWriteStatus => (crmOwnerId ? 'pending' : 'unmapped');

export const crmClientId = (crm: Crm, recordId: string) => `${crm}:${recordId}`;

const CRM_CLIENT_ID = new RegExp(`^(${CRMS.join('|')}):(.+)$`, 's');

/** The CRM record a client id names (`hubspot:123`), or null for a client of another kind. */
export function crmRecordOfClientId(clientId: string): { crm: Crm; recordId: string } | null {
  const match = CRM_CLIENT_ID.exec(clientId);
  return match ? { crm: match[1] as Crm, recordId: match[2] } : null;
}

export interface ProcessCrmLeadInput {
  business: string;
  crm: Crm;
  /** The record's id in the CRM (a HubSpot contact, a Salesforce Lead, a Pipedrive person or lead). */
  recordId: string;
}

export const PROCESS_CRM_LEAD_WORKFLOW = 'processCrmLead';

export type ProcessCrmLeadWorkflow = (input: ProcessCrmLeadInput) => Promise<void>;

/** One run at a time per record: every inbound event about it is handled by that run, in order. */
export const crmLeadWorkflowId = ({ business, crm, recordId }: ProcessCrmLeadInput) => `crm-lead/${business}/${crm}/${recordId}`;

/** An inbound event about the record was recorded: the run reads it before it ends. */
export const crmEventRecordedSignal = defineSignal('crmEventRecorded');

/** Failures of the lead's activities that end them without retry. */
export const CrmFailureType = {
  /** The CRM refused the owner's write for good (a 4xx other than 429, a record gone). */
  CrmRefused: 'CrmRefused',
  /** The business removed its connector: nothing can be fetched or written. */
  ConnectorGone: 'ConnectorGone',
} as const;
