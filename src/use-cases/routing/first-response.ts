import type { Prisma as Db } from '../../generated/prisma/client';
import { agentIdsOf } from '../../db/agents';
import { endActiveIn } from '../../db/assignments';
import type { NewEvent, RecordEvent } from '../../db/events';
import { activeAssignment, decisionForClock, policyOfDecision, recordEscalated, recordReassigned } from '../../db/routing-decisions';
import { lockPolicy, settingsOf } from '../../db/routing-policies';
import { firstResponseDueAt, type RecordedAssignment, type WorkingHours } from '../../domain';
import { routingDecisionView } from '../../views/routing-decision';
import { assignedBy, attempt, routingEvent } from './attempt';

export type FirstResponseOutcome =
  | { state: 'waiting'; dueAt: Date | null; reassignments: number }
  | { state: 'reassigned'; reassignments: number; assigned: RecordedAssignment; endedWorkflowId: string; clientId: string; policy: { business: string; ownerId: string; pk: string; id: string } }
  | { state: 'done'; outcome: 'answered' | 'escalated' | 'ended' };

/**
 * One look at a decision's first-response clock, under its policy's lock. The clock starts when the
 * current owner got the client (`decided_at`) and, when the policy checks working hours, runs only
 * inside the owner's. Once it is out and nobody answered: the assignment ends (`ended_by` routing) and
 * the client goes to an eligible member who has not held it under this decision, while reassignments
 * are left; otherwise the owner keeps it and the decision is escalated. The policy's current settings
 * apply (a policy that dropped the clock stops it).
 */
export async function firstResponseStep(tx: Db.TransactionClient, record: RecordEvent, decisionId: string, at: Date): Promise<FirstResponseOutcome> {
  const policyPk = await policyOfDecision(tx, decisionId);
  const policy = policyPk && (await lockPolicy(tx, policyPk));
  if (!policy) return { state: 'done', outcome: 'ended' };
  const d = await decisionForClock(tx, decisionId);
  if (d.answeredAt) return { state: 'done', outcome: 'answered' };
  if (d.escalatedAt) return { state: 'done', outcome: 'escalated' };
  const settings = settingsOf(policy);
  const active = d.status === 'assigned' && d.assignmentId && d.agent ? await activeAssignment(tx, d.assignmentId) : null;
  if (!active || !d.agent || !d.agentPk || !settings.first_response_within) return { state: 'done', outcome: 'ended' };

  const dueAt = firstResponseDueAt(d.decidedAt, settings.first_response_within, settings.working_hours, { workingHours: d.agent.workingHours as WorkingHours | null, timezone: d.agent.timezone });
  if (!dueAt || at < dueAt) return { state: 'waiting', dueAt, reassignments: d.reassignments };

  const scope = { business: policy.business, ownerId: policy.ownerId };
  const events: NewEvent[] = [];
  const heldPks = [...d.heldBy, d.agentPk];
  const tried =
    d.reassignments < (settings.max_reassignments ?? 0)
      ? await attempt(tx, policy, { pk: d.clientPk, id: d.client.id }, at, d.id, d.notes, true, events, 'rule', {
          excluded: new Set(await agentIdsOf(tx, heldPks)),
          beforeRecord: async () => void (await endActiveIn(tx, { id: d.assignmentId! }, 'routing', at, events)),
          leaving: d.assignmentId!,
        })
      : null;
  if (!tried?.assigned) {
    const escalated = await recordEscalated(tx, d.id, at, tried?.candidates);
    await record(routingEvent('routing.escalated', escalated, scope, 'rule'));
    return { state: 'done', outcome: 'escalated' };
  }
  const decision = await recordReassigned(tx, d.id, assignedBy(policy, tried.assigned, tried.candidates, at), heldPks);
  events.push({ ...routingEvent('routing.reassigned', decision, scope, 'rule'), data: { ...routingDecisionView(decision), reason: 'rule', previous_agent: d.agent.id } });
  for (const event of events) await record(event);
  return {
    state: 'reassigned',
    reassignments: decision.reassignments,
    assigned: tried.assigned,
    endedWorkflowId: active.workflowId,
    clientId: d.client.id,
    policy: { business: policy.business, ownerId: policy.ownerId, pk: policy.pk, id: policy.id },
  };
}
