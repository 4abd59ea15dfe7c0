import type { Assignment } from '../generated/prisma/client';
import { BY_EXPIRY, changedBy, type ChangedBy } from './changed-by';

/** Who ended it: the expiry, or whoever unassigned it; null while active. */
function endedBy(a: Assignment): ChangedBy | null {
  if (a.status === 'expired') return BY_EXPIRY;
  return a.status === 'unassigned' ? changedBy(a.endedBy) : null;
}

/** One item of `GET /clients/{_id}/agents`; also the `data` of an assignment event, with its client. */
export const assignmentView = (a: Assignment & { agent: { id: string } }) => ({
  agent: a.agent.id,
  dt_until: a.dtUntil.toISOString(),
  status: a.status,
  ds_notes: a.notes,
  workflow_id: a.workflowId,
  assigned_at: a.createdAt.toISOString(),
  updated_at: a.updatedAt.toISOString(),
  ended_at: a.endedAt?.toISOString() ?? null,
  ended_by: endedBy(a),
  rotation: a.rotation,
  routed_by: (a.routedBy as { policy: string; version: number; decision_id: string } | null) ?? null,
});
