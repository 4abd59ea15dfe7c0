/*
 * Whether a routing decision's first-response clock runs (docs/routing.md): the decision assigned its
 * client, that assignment is still active, its owner has neither answered nor been escalated, and its
 * policy gives `first_response_within` (an ISO 8601 duration). src/db/first-response-clocks.ts says it in
 * SQL for its reads, the reconciler's paged scan among them.
 */

export const FIRST_RESPONSE_SETTING = 'first_response_within';

export interface FirstResponseFields {
  status: string;
  answeredAt: Date | null;
  escalatedAt: Date | null;
  /** Of the assignment the decision made. */
  assignmentStatus: string;
  /** The policy's, as stored. */
  settings: unknown;
}

/** A setting that holds a duration: a string of ISO 8601's `P…` form. */
export const isDurationSetting = (value: unknown): boolean => typeof value === 'string' && value.startsWith('P');

export function firstResponseClockRuns(decision: FirstResponseFields): boolean {
  const settings = (decision.settings ?? {}) as Record<string, unknown>;
  return decision.status === 'assigned' && decision.answeredAt === null && decision.escalatedAt === null && decision.assignmentStatus === 'active' && isDurationSetting(settings[FIRST_RESPONSE_SETTING]);
}
