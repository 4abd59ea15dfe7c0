import { defineSignal } from '@temporalio/workflow';

export const DEFAULT_DT_UNTIL = '2143-06-23T00:00:00.000Z';

export const ASSIGNMENT_STATUSES = ['active', 'expired', 'unassigned'] as const;
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number];

/**
 * Ids and dates only. The caller's user id and the notes wait in PostgreSQL (`assign_requests`, keyed
 * by the run's workflow id) for the recording transaction: Temporal never holds them.
 */
export interface AssignAgentsInput {
  business: string;
  clientId: string;
  agents: { agentId: string; dtUntil: string }[];
}

/** What the recording activity is given: the input and the key of its `assign_requests` row. */
export interface RecordAssignmentsInput extends AssignAgentsInput {
  requestKey: string;
}

export interface RecordedAssignment {
  agentId: string;
  dtUntil: string;
  /** The client's run, which holds the assignment's clock. */
  workflowId: string;
  /** The run the row named until this change took it over (data from before one run per client). */
  replacedWorkflowId?: string;
  expiry: AssignmentExpiryInput;
  /** The request was settled before (a request asked again): this is its first outcome, maybe older than the row now. */
  replayed?: boolean;
}

/** The workflow's result; the HTTP answer adds the request's `ds_notes`, which the API holds. */
export interface AssignAgentsResult {
  client: string;
  assignments: { agent: string; dt_until: string; status: 'active'; workflow_id: string }[];
}

/** Identifies one (client, agent) pair and when its active assignment ends: what the client's run is told of it. */
export interface AssignmentExpiryInput {
  business: string;
  clientId: string;
  agentId: string;
  clientPk: string;
  agentPk: string;
  /** When the current active assignment ends, ISO 8601. */
  dtUntil: string;
}

export type ExpiryCheck = { status: 'expired' } | { status: 'active'; dtUntil: string } | { status: 'none' };

/** Sent after the database row of the pair changed (re-assigned or unassigned): the workflow re-reads it. */
export const assignmentChangedSignal = defineSignal('assignmentChanged');

/** One per request: the business key plus a request id, so a request's run is found by its client. */
export function assignAgentsWorkflowId(input: { business: string; clientId: string; requestId: string }): string {
  return ['assign-agents', input.business, input.clientId, input.requestId].join('/');
}

