import { defineQuery, defineSignal } from '@temporalio/workflow';

export const DEFAULT_DT_UNTIL = '2143-06-23T00:00:00.000Z';

export const ASSIGNMENT_STATUSES = ['active', 'expired', 'unassigned'] as const;
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number];

export interface AssignAgentsInput {
  business: string;
  ownerId: string;
  clientId: string;
  agents: { agentId: string; dtUntil: string }[];
  notes: string | null;
}

export interface RecordedAssignment {
  agentId: string;
  dtUntil: string;
  workflowId: string;
  expiry: AssignmentExpiryInput;
}

export interface AssignAgentsResult {
  client: string;
  ds_notes: string | null;
  assignments: { agent: string; dt_until: string; status: 'active'; workflow_id: string }[];
}

/** Identifies one (client, agent) pair; its expiry workflow outlives each assignment period. */
export interface AssignmentExpiryInput {
  business: string;
  ownerId: string;
  clientId: string;
  agentId: string;
  clientPk: string;
  agentPk: string;
  /** When the current active assignment ends, ISO 8601. */
  dtUntil: string;
}

export type ExpiryCheck = { status: 'expired' } | { status: 'active'; dtUntil: string } | { status: 'none' };

export interface AssignmentExpiryResult {
  outcome: 'expired' | 'ended';
}

/** The expiry workflow's name and signature, for starting it from activities without importing workflow code. */
export const ASSIGNMENT_EXPIRY_WORKFLOW = 'assignmentExpiry';
export type AssignmentExpiryWorkflow = (input: AssignmentExpiryInput) => Promise<AssignmentExpiryResult>;

export interface AssignmentExpiryState {
  dtUntil: string;
  /** When the current timer fires: dtUntil, or the end of this run's chunk. */
  nextWakeAt: string;
}

/** Sent after the database row of the pair changed (re-assigned or unassigned): the workflow re-reads it. */
export const assignmentChangedSignal = defineSignal('assignmentChanged');
export const assignmentStateQuery = defineQuery<AssignmentExpiryState>('state');

export function assignmentWorkflowId(input: { business: string; clientId: string; agentId: string; ownerId: string }): string {
  return ['assignment', input.business, input.clientId, input.agentId, encodeURIComponent(input.ownerId)].join('/');
}

/** One per request: the business key plus a request id, so a request's run is found by its client. */
export function assignAgentsWorkflowId(input: { business: string; clientId: string; requestId: string }): string {
  return ['assign-agents', input.business, input.clientId, input.requestId].join('/');
}
