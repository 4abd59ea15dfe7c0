import { DEFAULT_DT_UNTIL } from './assignments';
import type { EventType } from './events';
import { addIsoDuration, type Candidate, type DecisionStatus, type PolicySettings } from './routing';
import { addWorkingTime, type WorkingHours } from './working-hours';

/*
 * The rules of one routing decision beside the pick itself (src/domain/routing.ts): who holds the
 * client already, what the decision says, how long the assignment runs and when the owner's time to
 * answer is out. Pure: the routing use cases feed them the rows read under the policy's lock.
 */

/** An active assignment of the client that routing found and left as it is. */
export interface Holding {
  agentPk: string;
  agentId: string;
  assignmentId: string;
  dtUntil: Date;
}

/**
 * The member (first in member order) who holds the client and would be eligible but for the load that
 * this very client adds: a member at capacity because of it still holds it.
 */
export function eligibleHolder(candidates: Candidate[], holdings: Holding[]): Holding | undefined {
  for (const c of candidates) {
    const holding = holdings.find((h) => h.agentId === c.agent);
    if (holding && c.reasons.every((r) => r === 'at_capacity')) return holding;
  }
  return undefined;
}

/** Routing never gives a client to an agent who holds it already (that would rewrite the holder's own assignment). */
export const withHoldersExcluded = (candidates: Candidate[], holdings: Holding[]): Candidate[] =>
  candidates.map((c) => (holdings.some((h) => h.agentId === c.agent) ? { ...c, eligible: false, reasons: [...c.reasons, 'holds_client'] } : c));

/** A routed assignment's `dt_until`: the policy's `assignment_duration` from `at`, else the seed's default. */
export const routedDtUntil = (settings: Pick<PolicySettings, 'assignment_duration'>, at: Date): string =>
  settings.assignment_duration ? addIsoDuration(at, settings.assignment_duration).toISOString() : DEFAULT_DT_UNTIL;

/** A new decision: assigned, or found held by an eligible member, else queued or rejected as the policy says. */
export function newDecisionStatus(assigned: boolean, held: boolean, settings: Pick<PolicySettings, 'when_none_eligible'>): DecisionStatus {
  if (assigned) return 'assigned';
  if (held) return 'already_assigned';
  return settings.when_none_eligible === 'reject' ? 'rejected' : 'queued';
}

/** The event a new decision records; none for a client found held (its assignment made its own when it was made). */
export function newDecisionEvent(status: DecisionStatus): EventType | null {
  if (status === 'assigned') return 'routing.assigned';
  if (status === 'queued') return 'routing.queued';
  return status === 'rejected' ? 'routing.no_eligible_agent' : null;
}

/**
 * When the owner's time to answer is out: `within` from `decidedAt`, counted inside the owner's
 * working hours when the policy checks them. Null: the owner has no working time ahead.
 */
export function firstResponseDueAt(decidedAt: Date, within: string, workingHours: boolean, owner: { workingHours: WorkingHours | null; timezone: string | null }): Date | null {
  const withinMs = addIsoDuration(decidedAt, within).getTime() - decidedAt.getTime();
  return workingHours ? addWorkingTime(owner.workingHours, owner.timezone, decidedAt, withinMs) : new Date(decidedAt.getTime() + withinMs);
}
