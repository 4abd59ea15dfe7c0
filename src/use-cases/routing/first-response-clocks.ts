import type { Client as TemporalClient } from '@temporalio/client';
import { withEvents } from '../../db/events';
import { openDecisionsOfClient, takeOverDecisionClocks } from '../../db/first-response-clocks';
import type { Prisma } from '../../db/prisma';
import type { FirstResponseClocks, FirstResponseStep } from '../../domain';
import { afterAssignmentsEnded } from '../assignments/after-change';
import { firstResponseStep } from './first-response';

/* The first-response clocks as the client's run keeps them. */

export interface FirstResponseClockDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/**
 * One look at a decision's first-response clock; when it is out, reassigns (what follows the ended
 * assignment follows it; the client's run, the caller, re-reads the new one) or escalates.
 */
async function stepDecision(deps: FirstResponseClockDeps, decisionId: string): Promise<FirstResponseStep> {
  const step = await withEvents(deps.prisma, (tx, record) => firstResponseStep(tx, record, decisionId, new Date()));
  if (step.state === 'waiting') return { state: 'waiting', dueAt: step.dueAt?.toISOString() ?? null, reassignments: step.reassignments };
  if (step.state === 'done') return step;
  const { business, ownerId } = step.policy;
  await afterAssignmentsEnded(deps, { business, ownerId }, [{ business, clientId: step.clientId, workflowId: step.endedWorkflowId }], 'routing');
  return { state: 'reassigned', reassignments: step.reassignments };
}

/**
 * The client's run: every decision of the client whose first-response clock runs, taken over from the
 * run that held it in data from before one run per client, then stepped — reassigned or escalated
 * if its time is out. Returns the clocks still running and when each is due.
 */
export async function stepClientFirstResponses(deps: FirstResponseClockDeps, clientPk: string): Promise<FirstResponseClocks> {
  const open = await openDecisionsOfClient(deps.prisma, clientPk);
  const held = open.filter((d) => d.clockWorkflowId).map((d) => d.id);
  if (held.length > 0) await takeOverDecisionClocks(deps.prisma, held);
  const clocks: FirstResponseClocks['clocks'] = [];
  let reassigned = false;
  for (const decision of open) {
    let step = await stepDecision(deps, decision.id);
    // The clock starts again for the new owner.
    while (step.state === 'reassigned') {
      reassigned = true;
      step = await stepDecision(deps, decision.id);
    }
    if (step.state === 'waiting') clocks.push({ decisionId: decision.id, dueAt: step.dueAt });
  }
  return { clocks, reassigned };
}
