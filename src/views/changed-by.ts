import type { EventReason } from '../domain';

/**
 * Who made a change that ended or stopped something, as the API shows it: `user`, the resource's owner
 * (the only user who can change it: the token's subject, through the API or Nexus), `operator` (its
 * workflow canceled in the Temporal UI), or `system` (a date reached). `reason` is the one its event
 * carries. The user's id is not repeated: the caller is that user.
 */
export interface ChangedBy {
  actor: 'user' | 'operator' | 'system';
  /** A carrier never ends or stops anything a user owns; a conversation's clocks end nothing either. */
  reason: Exclude<EventReason, 'carrier' | 'snooze' | 'reply_clock'>;
}

/** From a row's `*_by` column (`api`, `operator`, `client_deleted`, `agent_deleted`); null when the row does not say (changed before it was recorded). */
export function changedBy(by: string | null): ChangedBy | null {
  if (by === 'api') return { actor: 'user', reason: 'api' };
  if (by === 'client_deleted' || by === 'agent_deleted') return { actor: 'user', reason: by };
  if (by === 'operator') return { actor: 'operator', reason: 'operator' };
  if (by === 'routing') return { actor: 'system', reason: 'routing' };
  return null;
}

export const BY_EXPIRY: ChangedBy = { actor: 'system', reason: 'expiry' };
