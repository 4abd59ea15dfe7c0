import type { Prisma as Db } from '../../generated/prisma/client';
import type { Client as TemporalClient } from '@temporalio/client';
import { withEvents, type NewEvent, type RecordEvent } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import { countWaiting, leaveQueue, oldestWaiting, saveCandidates } from '../../db/routing-decisions';
import { lockPolicy, settingsOf } from '../../db/routing-policies';
import { nextEligibilityChange, type DrainResult, type RecordedAssignment, type RoutingQueueInput } from '../../domain';
import { afterAssignmentStarted, afterQueuedClientDecided } from '../assignments/after-change';
import { assignedBy, attempt, routingEvent } from './attempt';

export type DrainStep =
  | { outcome: 'assigned'; assigned: RecordedAssignment; business: string; clientId: string; decisionId: string; firstResponse: boolean }
  | { outcome: 'alreadyAssigned'; business: string; clientId: string }
  | { outcome: 'none'; waiting: number; oldestSince: Date | null; nextChangeAt: Date | null }
  | { outcome: 'gone' };

/**
 * Assigns the oldest client waiting in the policy's queue, if anyone is eligible now; otherwise says how
 * many wait and when the clock alone may free someone. One transaction, under the policy's lock.
 */
export async function assignOldestWaiting(tx: Db.TransactionClient, record: RecordEvent, policyPk: string, at: Date): Promise<DrainStep> {
  const policy = await lockPolicy(tx, policyPk);
  if (!policy) return { outcome: 'gone' };
  const scope = { business: policy.business, ownerId: policy.ownerId };
  const oldest = await oldestWaiting(tx, policyPk);
  if (!oldest) return { outcome: 'none', waiting: 0, oldestSince: null, nextChangeAt: null };
  const events: NewEvent[] = [];
  const tried = await attempt(tx, policy, { pk: oldest.clientPk, id: oldest.client.id }, at, oldest.id, oldest.notes, true, events, 'rule');
  if (tried.holder) {
    // Assigned to a member by hand (or by another policy) while it waited: it leaves the queue with that holder.
    const { agentPk, assignmentId, dtUntil } = tried.holder;
    await leaveQueue(tx, oldest.id, 'already_assigned', { version: policy.version, agentPk, assignmentId, dtUntil, candidates: tried.candidates, decidedAt: at });
    return { outcome: 'alreadyAssigned', business: policy.business, clientId: oldest.client.id };
  }
  if (!tried.assigned) {
    await saveCandidates(tx, oldest.id, tried.candidates);
    const waiting = await countWaiting(tx, [policyPk]);
    return { outcome: 'none', waiting, oldestSince: oldest.queuedAt, nextChangeAt: nextEligibilityChange(tried.members, settingsOf(policy).working_hours, at) };
  }
  const decision = await leaveQueue(tx, oldest.id, 'assigned', assignedBy(policy, tried.assigned, tried.candidates, at));
  events.push(routingEvent('routing.assigned', decision, scope, 'rule'));
  for (const event of events) await record(event);
  return { outcome: 'assigned', assigned: tried.assigned, business: policy.business, clientId: oldest.client.id, decisionId: decision.id, firstResponse: !!settingsOf(policy).first_response_within };
}

export interface DrainDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/** At most this many assignments per drain; the queue's workflow calls again while any are made. */
const MAX_PER_DRAIN = 50;

/**
 * Assigns waiting clients oldest first, one transaction each, while someone is eligible; what follows
 * each new assignment follows it (src/use-cases/assignments/after-change.ts). Reports what is left and
 * when the clock may free someone.
 */
export async function drainRoutingQueue(deps: DrainDeps, input: RoutingQueueInput): Promise<DrainResult> {
  let assigned = 0;
  for (;;) {
    const step = await withEvents(deps.prisma, (tx, record) => assignOldestWaiting(tx, record, input.policyKey, new Date()));
    if (step.outcome === 'gone') return { assigned, waiting: 0, oldestSince: null, nextChangeAt: null, gone: true };
    if (step.outcome === 'none') {
      return { assigned, waiting: step.waiting, oldestSince: step.oldestSince?.toISOString() ?? null, nextChangeAt: step.nextChangeAt?.toISOString() ?? null, gone: false };
    }
    // A client found held already left the queue too: it counts as taken, so the workflow looks again.
    assigned++;
    if (step.outcome === 'assigned') {
      const firstResponse = step.firstResponse ? { business: input.business, decisionId: step.decisionId } : null;
      await afterAssignmentStarted(deps, { workflowId: step.assigned.workflowId, expiry: step.assigned.expiry, firstResponse });
    }
    await afterQueuedClientDecided(deps, step);
    if (assigned >= MAX_PER_DRAIN) return { assigned, waiting: -1, oldestSince: null, nextChangeAt: null, gone: false };
  }
}
