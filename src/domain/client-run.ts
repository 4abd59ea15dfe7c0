import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { AssignAgentsResult, RecordedAssignment } from './assignments';

/*
 * One long-lived run per client (`client/{business}/{client id}/{client pk}`) holds the clock of every
 * active assignment of the client: assign-agents reaches it with Update-with-Start, and every other path
 * that changes the client's assignment rows (unassign, routing, rotation, the CRM lead, deletions, the
 * reconciler) signals it to re-read them (`assignmentChangedSignal`). PostgreSQL stays the truth.
 */

export const CLIENT_WORKFLOW = 'clientOwnership';

export interface ClientRunInput {
  business: string;
  clientId: string;
  clientPk: string;
  /** Continue as new after this many history events (CLIENT_RUN_HISTORY_LIMIT unless a test says less). */
  historyLimit?: number;
}

export interface ClientRunResult {
  /** The client has no active assignment left. */
  outcome: 'idle';
}

export type ClientOwnershipWorkflow = (input: ClientRunInput) => Promise<ClientRunResult>;

/** Ids and dates only: the caller's user id and the notes wait in `assign_requests` under `requestKey`. */
export interface AssignUpdateInput {
  requestKey: string;
  agents: { agentId: string; dtUntil: string }[];
}

/** One request's outcome in a batch the client's run recorded: its assignments, or its business failure. */
export type AssignRequestOutcome =
  | { ok: true; assignments: RecordedAssignment[] }
  | { ok: false; type: string; message: string };

export const assignUpdate = defineUpdate<AssignAgentsResult, [AssignUpdateInput]>('assign');

/** One active assignment's clock in the client's run. */
export interface AssignmentClock {
  agentId: string;
  agentPk: string;
  dtUntil: string;
}

export interface ClientRunState {
  assignments: AssignmentClock[];
  /** When the run's timer fires: the earliest dt_until, or the end of a timer chunk; null when idle. */
  nextWakeAt: string | null;
}

export const clientRunStateQuery = defineQuery<ClientRunState>('state');

/** Bounded history: a client re-assigned all day replays a few thousand events at most when its run is evicted. */
export const CLIENT_RUN_HISTORY_LIMIT = 1000;

/** Ids only, as the rows' `workflow_id` shows it: the client's internal key tells two users' clients of the same id apart. */
export function clientWorkflowId(keys: { business: string; clientId: string; clientPk: string }): string {
  return ['client', keys.business, keys.clientId, keys.clientPk].join('/');
}
