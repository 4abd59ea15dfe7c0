import type { Client as TemporalClient } from '@temporalio/client';
import { findClientScope } from '../db/clients';
import { withEvents } from '../db/events';
import type { Prisma } from '../db/prisma';
import { assignOldestWaiting, firstResponseStep, policiesWithWaiting } from '../db/routing-decisions';
import type { DrainResult, FirstResponseInput, FirstResponseStep, RoutingQueueInput } from '../domain';
import { startOrWakeExpiry, wakeExpiry } from '../starters/assignment-expiry-workflow';
import { startFirstResponseClock } from '../starters/first-response-workflow';
import { wakeCrmLeadOfClient, wakeQueuedCrmLead } from '../starters/process-crm-lead-workflow';
import { wakeRoutingQueue } from '../starters/routing-queue-workflow';
import { whileHeartbeating } from './heartbeat';

export interface RoutingActivityDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/** At most this many assignments per activity run; the workflow calls again while any are made. */
const MAX_PER_DRAIN = 50;

export function createRoutingActivities({ prisma, temporal, taskQueue }: RoutingActivityDeps) {
  async function drain(input: RoutingQueueInput): Promise<DrainResult> {
    let assigned = 0;
    for (;;) {
      const step = await withEvents(prisma, (tx, record) => assignOldestWaiting(tx, record, input.policyKey, new Date()));
      if (step.outcome === 'gone') return { assigned, waiting: 0, oldestSince: null, nextChangeAt: null, gone: true };
      if (step.outcome === 'none') {
        return { assigned, waiting: step.waiting, oldestSince: step.oldestSince?.toISOString() ?? null, nextChangeAt: step.nextChangeAt?.toISOString() ?? null, gone: false };
      }
      // A client found held already left the queue too: it counts as taken, so the workflow looks again.
      assigned++;
      if (step.outcome === 'assigned') {
        await startOrWakeExpiry(temporal, taskQueue, step.assigned.workflowId, step.assigned.expiry);
        if (step.firstResponse) await startFirstResponseClock(temporal, taskQueue, { business: input.business, decisionId: step.decisionId });
      }
      await wakeQueuedCrmLead(temporal, step.business, step.clientId);
      if (assigned >= MAX_PER_DRAIN) return { assigned, waiting: -1, oldestSince: null, nextChangeAt: null, gone: false };
    }
  }

  return {
    /**
     * Assigns waiting clients oldest first, one transaction each, while someone is eligible; each new
     * assignment gets its expiry workflow. Reports what is left and when the clock may free someone.
     */
    async drainRoutingQueue(input: RoutingQueueInput): Promise<DrainResult> {
      // A worker killed mid-drain is noticed by its missed heartbeat, within seconds.
      return whileHeartbeating(() => drain(input));
    },

    /**
     * Looks at a decision's first-response clock; when it is out, reassigns (the new assignment's expiry
     * workflow started, the ended one's woken, the policy's queue told of the capacity freed) or escalates.
     */
    async checkFirstResponse(input: FirstResponseInput): Promise<FirstResponseStep> {
      const step = await withEvents(prisma, (tx, record) => firstResponseStep(tx, record, input.decisionId, new Date()));
      if (step.state === 'waiting') return { state: 'waiting', dueAt: step.dueAt?.toISOString() ?? null, reassignments: step.reassignments };
      if (step.state === 'done') return step;
      await startOrWakeExpiry(temporal, taskQueue, step.assigned.workflowId, step.assigned.expiry);
      await wakeExpiry(temporal, step.endedWorkflowId);
      await wakeRoutingQueue(temporal, taskQueue, { business: step.policy.business, policyKey: step.policy.pk, policyId: step.policy.id });
      await wakeCrmLeadOfClient(temporal, taskQueue, step.policy.business, step.clientId);
      return { state: 'reassigned', reassignments: step.reassignments };
    },
  };
}

/**
 * After an assignment of this client ended by itself (expiry) or by an operator: its owner's waiting
 * queues drain, and a CRM lead's owner follows the new holder. Best effort, never failing the caller:
 * a waiting queue also re-checks every minute, the CRM sweep hands over a lead's event left unhandled.
 */
export async function wakeQueuesOfClientOwner(deps: RoutingActivityDeps, clientPk: string): Promise<void> {
  try {
    const client = await findClientScope(deps.prisma, clientPk);
    if (!client) return;
    await wakeCrmLeadOfClient(deps.temporal, deps.taskQueue, client.business, client.id);
    for (const policy of await policiesWithWaiting(deps.prisma, client)) {
      await wakeRoutingQueue(deps.temporal, deps.taskQueue, { business: policy.business, policyKey: policy.pk, policyId: policy.id });
    }
  } catch {
    // The queue's own re-check finds the freed capacity.
  }
}
