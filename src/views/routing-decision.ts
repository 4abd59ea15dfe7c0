import type { RoutingDecision } from '../generated/prisma/client';
import type { Candidate, DecisionStatus } from '../domain';

export type DecisionWithKeys = RoutingDecision & { policy: { id: string }; client: { id: string }; agent: { id: string } | null };

/** A decision as `GET /routing-decisions/{id}` shows it, and the `data` of a routing event: who, and why. */
export const routingDecisionView = (d: DecisionWithKeys) => ({
  decision_id: d.id,
  policy: d.policy.id,
  version: d.version,
  client: d.client.id,
  status: d.status as DecisionStatus,
  agent: d.agent?.id ?? null,
  dt_until: d.dtUntil?.toISOString() ?? null,
  queued_at: d.queuedAt?.toISOString() ?? null,
  decided_at: d.decidedAt.toISOString(),
  answered_at: d.answeredAt?.toISOString() ?? null,
  reassignments: d.reassignments,
  escalated_at: d.escalatedAt?.toISOString() ?? null,
  candidates: d.candidates as unknown as Candidate[],
});
