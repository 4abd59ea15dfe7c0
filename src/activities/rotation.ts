import { activityInfo } from '@temporalio/activity';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../db/prisma';
import { activeRotationsOfClient, rotationClockOf, stopRotationsByOperator, takeOverRotationClocks } from '../db/rotations';
import type { AdvanceRotationInput, RotationClock, RotationStep } from '../domain';
import { ENDED_STEP } from '../domain/rotation-advance';
import { releaseRotationRun, wakeRotation } from '../starters/rotation-workflow';
import { afterAssignmentStarted } from '../use-cases/assignments/after-change';
import { advanceRotation } from '../use-cases/rotation/advance';

export interface RotationActivityDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/** The run that called: an older per-rotation run acts only on a rotation it still holds. */
const callerWorkflowId = () => {
  const workflowId = activityInfo().workflowExecution?.workflowId;
  if (!workflowId) throw new Error('Called outside a workflow');
  return workflowId;
};

export function createRotationActivities(deps: RotationActivityDeps) {
  const { prisma } = deps;
  // The activities are made when the worker starts: a period missed since then was not for want of a worker.
  const workerSince = new Date();
  /** Hands out what is due by the workflow's clock (or this worker's, if it is ahead). */
  const advance = (rotationKey: string, asOfIso: string) => {
    const asOf = new Date(asOfIso);
    return advanceRotation(prisma, rotationKey, new Date(Math.max(asOf.getTime(), Date.now())), { asOf, workerSince });
  };
  return {
    /**
     * An older build's per-rotation run (`rotation`): one step, then what follows the period in
     * progress's assignment (its clock, the client's run) — on every step, so a step retried after its
     * transaction committed still gives the assignment its clock. A rotation the client's run holds is
     * not this run's: it is told the rotation is gone (it ends), and the client's run is told of it.
     */
    async advanceRotation(input: AdvanceRotationInput): Promise<RotationStep> {
      const row = await rotationClockOf(prisma, input.rotationKey);
      if (row && row.status === 'active' && row.workflowId !== callerWorkflowId()) {
        if (!row.workflowId) await wakeRotation(deps.temporal, row);
        return ENDED_STEP;
      }
      const { step, wake } = await advance(input.rotationKey, input.asOf);
      if (wake) await afterAssignmentStarted(deps, wake);
      return step;
    },

    /**
     * The client's run: every active rotation of the client, taken over from an older build's run if one
     * held it (that run is told, and ends), then stepped as of the run's clock. The client's run re-reads
     * its assignments after it: a period handed out is one of them.
     */
    async advanceClientRotations(input: { clientPk: string; asOf: string }): Promise<RotationClock[]> {
      const rows = await activeRotationsOfClient(prisma, input.clientPk);
      const held = rows.filter((row) => row.workflowId);
      if (held.length > 0) {
        await takeOverRotationClocks(prisma, held.map((row) => row.key));
        for (const row of held) await releaseRotationRun(deps.temporal, row.workflowId!);
      }
      const clocks: RotationClock[] = [];
      for (const row of rows) clocks.push({ ...(await advance(row.key, input.asOf)).step, rotationKey: row.key });
      return clocks;
    },

    /** An operator canceled an older per-rotation run: its rotation stops, as a DELETE would, while that run still holds it. */
    stopRotationByOperator: async (rotationKey: string): Promise<boolean> => (await stopRotationsByOperator(prisma, { rotationKey, workflowId: callerWorkflowId() })) > 0,

    /** An operator canceled the client's run: every rotation of the client it holds stops, as stopped by an operator. */
    stopClientRotationsByOperator: (input: { clientPk: string }): Promise<number> => stopRotationsByOperator(prisma, { clientPk: input.clientPk, workflowId: null }),
  };
}
