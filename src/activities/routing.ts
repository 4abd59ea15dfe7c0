import { activityInfo } from '@temporalio/activity';
import type { Client as TemporalClient } from '@temporalio/client';
import { withEvents } from '../db/events';
import { openDecision, openDecisionsOfClient, takeOverDecisionClocks } from '../db/first-response-clocks';
import type { Prisma } from '../db/prisma';
import type { DrainResult, FirstResponseClocks, FirstResponseInput, FirstResponseStep, RoutingQueueInput } from '../domain';
import { lookAtFirstResponses, releaseFirstResponseRun } from '../starters/first-response-workflow';
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

  /**
   * One look at a decision's first-response clock; when it is out, reassigns (what follows the ended
   * assignment follows it, and the new one's, unless the caller is the client's run, which re-reads) or escalates.
   */
  async function stepDecision(decisionId: string, wakeClientRun: boolean): Promise<FirstResponseStep> {
    const step = await withEvents(prisma, (tx, record) => firstResponseStep(tx, record, decisionId, new Date()));
    if (step.state === 'waiting') return { state: 'waiting', dueAt: step.dueAt?.toISOString() ?? null, reassignments: step.reassignments };
    if (step.state === 'done') return step;
    if (wakeClientRun) await afterAssignmentStarted(deps, { workflowId: step.assigned.workflowId, expiry: step.assigned.expiry });
    const { business, ownerId } = step.policy;
    await afterAssignmentsEnded(deps, { business, ownerId }, [{ business, clientId: step.clientId, workflowId: step.endedWorkflowId }], 'routing');
    return { state: 'reassigned', reassignments: step.reassignments };
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
     * An older build's per-decision run (`routingFirstResponse`): looks at its decision's clock while that
     * run still holds it. One the client's run holds is its run's: this one ends (and, should the client's
     * run not know of it yet — an older API started this run — that run is told).
     */
    async checkFirstResponse(input: FirstResponseInput): Promise<FirstResponseStep> {
      const decision = await openDecision(prisma, input.decisionId);
      if (decision && decision.clockWorkflowId !== activityInfo().workflowExecution?.workflowId) {
        if (decision.clockWorkflowId === null) await lookAtFirstResponses(deps.temporal, deps.taskQueue, decision);
        return { state: 'done', outcome: 'ended' };
      }
      return stepDecision(input.decisionId, true);
    },

    /**
     * The client's run: every decision of the client whose first-response clock runs, taken over from an
     * older build's run if one held it (that run is told, and ends), then stepped — reassigned or escalated
     * if its time is out. Returns the clocks still running and when each is due.
     */
    async stepFirstResponses(input: { clientPk: string }): Promise<FirstResponseClocks> {
      const open = await openDecisionsOfClient(prisma, input.clientPk);
      const held = open.flatMap((d) => d.clockWorkflowId ?? []);
      if (held.length > 0) {
        await takeOverDecisionClocks(prisma, open.filter((d) => d.clockWorkflowId).map((d) => d.id));
        for (const workflowId of held) await releaseFirstResponseRun(deps.temporal, workflowId);
      }
      const clocks: FirstResponseClocks['clocks'] = [];
      let reassigned = false;
      for (const decision of open) {
        let step = await stepDecision(decision.id, false);
        // The clock starts again for the new owner.
        while (step.state === 'reassigned') {
          reassigned = true;
          step = await stepDecision(decision.id, false);
        }
        if (step.state === 'waiting') clocks.push({ decisionId: decision.id, dueAt: step.dueAt });
      }
      return { clocks, reassigned };
    },
  };
}
