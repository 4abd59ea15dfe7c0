import type { Scope } from './common';
import type { EventReason } from './events';

/*
 * The rules of recording an assignment (src/db/assignments.ts recordForOwner carries them out): who may
 * be assigned, what a request or a rotation's period does to the pair's active row, and which event
 * that is. Pure: the rows are read and written by the caller.
 */

/** Lead routing's decision that made an assignment (`routed_by` in its view). */
export type RoutedBy = { policy: string; version: number; decision_id: string };

/** What the pair's active row holds, as far as these rules look at it. */
export interface HeldAssignment {
  dtUntil: Date;
  notes: string | null;
  rotation: boolean;
  /** As stored: JSON, or null. */
  routedBy: unknown;
  workflowId: string;
}

/** What a request, or a rotation handing out a period, states for the pair. */
export interface StatedAssignment {
  dtUntil: Date;
  notes: string | null;
  rotation: boolean;
  routedBy: RoutedBy | null;
}

/**
 * What recording does to the pair: `create` a row; `keep` the active one as it is (a rotation never
 * shortens an assignment: an agent assigned beyond the period's end keeps that date); `restate` it with
 * the stated fields, reported as `assignment.updated` only when one of them changed.
 */
export type AssignmentStep =
  | { action: 'create'; dtUntil: Date; event: 'assignment.created' }
  | { action: 'keep'; dtUntil: Date; event: null }
  | { action: 'restate'; dtUntil: Date; event: 'assignment.updated' | null };

export function assignmentStep(active: HeldAssignment | null, stated: StatedAssignment): AssignmentStep {
  if (!active) return { action: 'create', dtUntil: stated.dtUntil, event: 'assignment.created' };
  if (stated.rotation && active.dtUntil > stated.dtUntil) return { action: 'keep', dtUntil: active.dtUntil, event: null };
  return { action: 'restate', dtUntil: stated.dtUntil, event: restates(active, stated) ? 'assignment.updated' : null };
}

/** A request that says again what is there changes nothing to report. */
function restates(active: HeldAssignment, stated: StatedAssignment): boolean {
  return (
    active.dtUntil.getTime() !== stated.dtUntil.getTime() ||
    active.notes !== stated.notes ||
    active.rotation !== stated.rotation ||
    JSON.stringify(active.routedBy) !== JSON.stringify(stated.routedBy)
  );
}

/** The client's run holds the clock: an active row naming another run (data from before one run per client) is taken over. */
export function replacedWorkflowId(active: Pick<HeldAssignment, 'workflowId'> | null, workflowId: string): string | undefined {
  return active && active.workflowId !== workflowId ? active.workflowId : undefined;
}

/** The events' reason: as given, else `rule` for a rotation's period and `api` for a request. */
export function assignmentReason(options: { rotation?: boolean; reason?: 'api' | 'rule' }): EventReason {
  return options.reason ?? (options.rotation ? 'rule' : 'api');
}

/** The first agent of the request that is not the owner's (all or none are assigned), if any. */
export function unauthorizedAgent(requested: readonly { agentId: string }[], owned: ReadonlySet<string>): string | undefined {
  return requested.find((a) => !owned.has(a.agentId))?.agentId;
}

/** The request's `assign_requests` row, as the recording transaction finds it. */
export type AssignRequestState = { state: 'pending'; scope: Scope; notes: string | null } | { state: 'settled'; outcome: unknown } | { state: 'missing' };

/**
 * Who states the assignments and with which notes: the pending row's; a settled row's first outcome,
 * replayed; else the request expired (its row was swept).
 */
export type RequestStatement = { kind: 'record'; scope: Scope; notes: string | null } | { kind: 'replay'; outcome: unknown } | { kind: 'expired' };

export function requestStatement(request: AssignRequestState): RequestStatement {
  if (request.state === 'settled') return { kind: 'replay', outcome: request.outcome };
  if (request.state === 'pending') return { kind: 'record', scope: request.scope, notes: request.notes };
  return { kind: 'expired' };
}

/** A settled request's first outcome, its assignments marked as replayed: the rows may have changed since. */
export function replayed<T extends { outcome: string; assignments?: object[] }>(outcome: T): T {
  return outcome.outcome === 'recorded' && outcome.assignments ? { ...outcome, assignments: outcome.assignments.map((a) => ({ ...a, replayed: true })) } : outcome;
}
