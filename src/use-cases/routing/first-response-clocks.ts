import type { Client as TemporalClient } from '@temporalio/client';
import { withEvents } from '../../db/events';
import { openDecision, openDecisionsOfClient, takeOverDecisionClocks } from '../../db/first-response-clocks';
import type { Prisma } from '../../db/prisma';
import type { FirstResponseClocks, FirstResponseStep } from '../../domain';
import { lookAtFirstResponses, releaseFirstResponseRun } from '../../starters/first-response-workflow';
import { afterAssignmentStarted, afterAssignmentsEnded } from '../assignments/after-change';
import { firstResponseStep } from './first-response';

/* The first-response clocks as the client's run (and an older build's per-decision run) keeps them. */

export interface FirstResponseClockDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/**
 * One look at a decision's first-response clock; when it is out, reassigns (what follows the ended
 * assignment follows it, and the new one's, unless the caller is the client's run, which re-reads) or escalates.
 */
async function stepDecision(deps: FirstResponseClockDeps, decisionId: string, wakeClientRun: boolean): Promise<FirstResponseStep> {
  const step = await withEvents(deps.prisma, (tx, record) => firstResponseStep(tx, record, decisionId, new Date()));
  if (step.state === 'waiting') return { state: 'waiting', dueAt: step.dueAt?.toISOString() ?? null, reassignments: step.reassignments };
  if (step.state === 'done') return step;
  if (wakeClientRun) await afterAssignmentStarted(deps, { workflowId: step.assigned.workflowId, expiry: step.assigned.expiry });
  const { business, ownerId } = step.policy;
  await afterAssignmentsEnded(deps, { business, ownerId }, [{ business, clientId: step.clientId, workflowId: step.endedWorkflowId }], 'routing');
  return { state: 'reassigned', reassignments: step.reassignments };
}

/**
 * An older build's per-decision run: looks at its decision's clock while that run (`callerWorkflowId`,
 * asked only when the decision is open) still holds it. One the client's run holds is its run's: this one
 * ends (and, should the client's run not know of it yet — an older API started this run — that run is told).
 */
export async function checkFirstResponseOfRun(deps: FirstResponseClockDeps, decisionId: string, callerWorkflowId: () => string | undefined): Promise<FirstResponseStep> {
  const decision = await openDecision(deps.prisma, decisionId);
  if (decision && decision.clockWorkflowId !== callerWorkflowId()) {
    if (decision.clockWorkflowId === null) await lookAtFirstResponses(deps.temporal, deps.taskQueue, decision);
    return { state: 'done', outcome: 'ended' };
  }
  return stepDecision(deps, decisionId, true);
}

/**
 * The client's run: every decision of the client whose first-response clock runs, taken over from an
 * older build's run if one held it (that run is told, and ends), then stepped — reassigned or escalated
 * if its time is out. Returns the clocks still running and when each is due.
 */
export async function stepClientFirstResponses(deps: FirstResponseClockDeps, clientPk: string): Promise<FirstResponseClocks> {
  const open = await openDecisionsOfClient(deps.prisma, clientPk);
  const held = open.flatMap((d) => d.clockWorkflowId ?? []);
  if (held.length > 0) {
    await takeOverDecisionClocks(deps.prisma, open.filter((d) => d.clockWorkflowId).map((d) => d.id));
    for (const workflowId of held) await releaseFirstResponseRun(deps.temporal, workflowId);
  }
  const clocks: FirstResponseClocks['clocks'] = [];
  let reassigned = false;
  for (const decision of open) {
    let step = await stepDecision(deps, decision.id, false);
    // The clock starts again for the new owner.
    while (step.state === 'reassigned') {
      reassigned = true;
      step = await stepDecision(deps, decision.id, false);
    }
    if (step.state === 'waiting') clocks.push({ decisionId: decision.id, dueAt: step.dueAt });
  }
  return { clocks, reassigned };
}
