import type { AssignmentStatus } from './assignments';

/*
 * Whether an assignment holds its client at a moment: active, and its `dt_until` still ahead. An active
 * row whose date has passed holds nobody, though its expiry has not ended it yet (its run may be behind).
 * src/db/assignment-holds.ts says it for the queries.
 */

export interface HoldFields {
  status: AssignmentStatus | string;
  dtUntil: Date;
}

export function holdsAt(assignment: HoldFields, now: Date): boolean {
  return assignment.status === 'active' && assignment.dtUntil > now;
}
