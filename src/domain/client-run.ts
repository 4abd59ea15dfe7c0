import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AssignAgentsResult, RecordedAssignment } from './assignments';
import type { RotationStep } from './rotations';

/*
 * One long-lived run per client (`client/{business}/{client id}/{client pk}`) holds every clock of the
 * client: each active assignment's expiry, the first-response clocks of its routing decisions, its
 * rotations' period boundaries and the clocks of its conversations (snoozes, reply clocks). assign-agents reaches it with Update-with-Start (as a PUT of a rotation
 * does, to wait until the period due is handed out); every other path that changes the client's rows
 * (unassign, routing, an answer, rotation, the CRM lead, deletions, the reconciler) signals it to re-read
 * the kind of rows it changed (`clocksChangedSignal`). PostgreSQL stays the truth.
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
  /** The client has no active assignment, no running first-response clock and no active rotation left. */
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

/** A batch the client's run recorded: each request's outcome, and the client's active assignments read after the batch committed. */
export interface RecordedAssignRequests {
  outcomes: AssignRequestOutcome[];
  clocks: AssignmentClock[];
}

export const assignUpdate = defineUpdate<AssignAgentsResult, [AssignUpdateInput]>('assign');

/** One active assignment's clock in the client's run. */
export interface AssignmentClock {
  agentId: string;
  agentPk: string;
  dtUntil: string;
}

/** The kinds of rows whose clocks the run holds: a path that changed some says which, and the run re-reads those. */
export const CLOCK_KINDS = ['assignments', 'firstResponses', 'rotations', 'conversations'] as const;
export type ClockKind = (typeof CLOCK_KINDS)[number];

/** Re-read these kinds of the client's rows (all of them when the list is empty). */
export const clocksChangedSignal = defineSignal<[ClockKind[]]>('clocksChanged');

/** A routing decision's first-response clock: ids and dates only. */
export interface FirstResponseClock {
  decisionId: string;
  /** When the owner must answer by; null while it has no working time ahead (the run looks again hourly). */
  dueAt: string | null;
}

/** One step of the client's first-response clocks: those still running, and whether a due one moved its client. */
export interface FirstResponseClocks {
  clocks: FirstResponseClock[];
  reassigned: boolean;
}

/**
 * A clock of one of the client's conversations (ids and dates only): its snooze ending, or its next
 * response coming due (`overdue`; null while its holder has no working time ahead: the run looks again hourly).
 */
export interface ConversationClock {
  conversationId: string;
  reason: 'snooze' | 'overdue';
  dueAt: string | null;
}

/** A rotation of the client, as its last step left it (agent ids, positions and dates). */
export type RotationClock = RotationStep & { rotationKey: string };

/**
 * One read of several kinds of the client's clocks, in this order: its rotations stepped (when asked),
 * its first-response clocks stepped (when asked), then its active assignments, which those steps may have changed.
 */
export interface ClientClocksRead {
  rotations?: RotationClock[];
  firstResponses?: FirstResponseClocks;
  /** Absent in a read recorded before conversations had clocks. */
  conversations?: ConversationClock[];
  assignments: AssignmentClock[];
}

/** A PUT of a rotation waits until the client's run has applied this version of it. */
export interface ApplyRotationInput {
  rotationKey: string;
  version: number;
}

/** Answers once the run has stepped the rotation at `version` or later (ENDED, version 0, when its row is gone). */
export const applyRotationUpdate = defineUpdate<RotationStep, [ApplyRotationInput]>('applyRotation');

export interface ClientRunState {
  assignments: AssignmentClock[];
  firstResponses: FirstResponseClock[];
  /** Active rotations only: a stopped one holds no clock. */
  rotations: RotationClock[];
  conversations: ConversationClock[];
  /** When the run's timer fires: the earliest of its clocks, or the end of a timer chunk; null when idle. */
  nextWakeAt: string | null;
}

export const clientRunStateQuery = defineQuery<ClientRunState>('state');

/** Bounded history: a client re-assigned all day replays a few thousand events at most when its run is evicted. */
export const CLIENT_RUN_HISTORY_LIMIT = 1000;

/** Ids only, as the rows' `workflow_id` shows it: the client's internal key tells two users' clients of the same id apart. */
export function clientWorkflowId(keys: { business: string; clientId: string; clientPk: string }): string {
  return ['client', keys.business, keys.clientId, keys.clientPk].join('/');
}
