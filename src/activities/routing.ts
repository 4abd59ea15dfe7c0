import type { Client as TemporalClient } from '@temporalio/client';
import { withEvents } from '../db/events';
import type { Prisma } from '../db/prisma';
import type { DrainResult, FirstResponseInput, FirstResponseStep, RoutingQueueInput } from '../domain';
import { afterAssignmentStarted, afterAssignmentsEnded, afterQueuedClientDecided } from '../use-cases/assignments/after-change';
import { assignOldestWaiting } from '../use-cases/routing/drain';
import { firstResponseStep } from '../use-cases/routing/first-response';
import { whileHeartbeating } from './heartbeat';

export interface RoutingActivityDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/** At most this many assignments per activity run; the workflow calls again while any are made. */
const MAX_PER_DRAIN = 50;

export function createRoutingActivities(deps: RoutingActivityDeps) {
  const { prisma } = deps;
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
        const firstResponse = step.firstResponse ? { business: input.business, decisionId: step.decisionId } : null;
        await afterAssignmentStarted(deps, { workflowId: step.assigned.workflowId, expiry: step.assigned.expiry, firstResponse });
      }
      await afterQueuedClientDecided(deps, step);
      if (assigned >= MAX_PER_DRAIN) return { assigned, waiting: -1, oldestSince: null, nextChangeAt: null, gone: false };
    }
  }

  return {
    /**
     * Assigns waiting clients oldest first, one transaction each, while someone is eligible; what follows
     * each new assignment follows it (src/use-cases/assignments/after-change.ts). Reports what is left and
     * when the clock may free someone.
     */
    async drainRoutingQueue(input: RoutingQueueInput): Promise<DrainResult> {
      // A worker killed mid-drain is noticed by its missed heartbeat, within seconds.
      return whileHeartbeating(() => drain(input));
    },

    /**
     * Looks at a decision's first-response clock; when it is out, reassigns (what follows the new
     * assignment and the ended one follows them) or escalates.
     */
    async checkFirstResponse(input: FirstResponseInput): Promise<FirstResponseStep> {
      const step = await withEvents(prisma, (tx, record) => firstResponseStep(tx, record, input.decisionId, new Date()));
      if (step.state === 'waiting') return { state: 'waiting', dueAt: step.dueAt?.toISOString() ?? null, reassignments: step.reassignments };
      if (step.state === 'done') return step;
      await afterAssignmentStarted(deps, { workflowId: step.assigned.workflowId, expiry: step.assigned.expiry });
      const { business, ownerId } = step.policy;
      await afterAssignmentsEnded(deps, { business, ownerId }, [{ business, clientId: step.clientId, workflowId: step.endedWorkflowId }], 'routing');
      return { state: 'reassigned', reassignments: step.reassignments };
    },
  };
}
