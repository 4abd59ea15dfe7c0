import { defineQuery, defineSignal } from '@temporalio/workflow';

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
  /** The older per-pair run that held the clock until this change took it over: told to re-read, it ends. */
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

/** Identifies one (client, agent) pair; its expiry workflow outlives each assignment period. */
export interface AssignmentExpiryInput {
  business: string;
  clientId: string;
  agentId: string;
  clientPk: string;
  agentPk: string;
  /** When the current active assignment ends, ISO 8601. */
  dtUntil: string;
  /** Runs started before the user id left Temporal carry it; it is dropped at their next continue-as-new. */
  ownerId?: string;
}

export type ExpiryCheck = { status: 'expired' } | { status: 'active'; dtUntil: string } | { status: 'none' };

export interface AssignmentExpiryResult {
  outcome: 'expired' | 'ended';
}

/** The request workflow's name and signature, for starting it without importing workflow code. */
export const ASSIGN_AGENTS_WORKFLOW = 'assignAgents';
export type AssignAgentsWorkflow = (input: AssignAgentsInput) => Promise<AssignAgentsResult>;

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

/**
 * The readable part (business, client, agent) and the client's internal key, which tells apart two
 * users' clients of the same id without naming the user. Rows keep the id their workflow runs under:
 * read it from the row, do not compute it again (runs started before this scheme end in the user id).
 */
export function assignmentWorkflowId(input: { business: string; clientId: string; agentId: string; clientPk: string }): string {
  return ['assignment', input.business, input.clientId, input.agentId, input.clientPk].join('/');
}

/** An expiry run's input without what older runs carried beyond ids and dates. */
export function withoutLegacyFields(input: AssignmentExpiryInput): AssignmentExpiryInput {
  const { ownerId: _userId, ...rest } = input;
  return rest;
}

/** One per request: the business key plus a request id, so a request's run is found by its client. */
export function assignAgentsWorkflowId(input: { business: string; clientId: string; requestId: string }): string {
  return ['assign-agents', input.business, input.clientId, input.requestId].join('/');
}

/** Runs that record this patch sleep their 30-day chunks less a random part of a day (see timers.ts). */
export const EXPIRY_CHUNK_JITTER_PATCH = 'expiry-chunk-jitter';
