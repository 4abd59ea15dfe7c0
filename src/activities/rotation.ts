import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../db/prisma';
import { stopRotationByOperator } from '../db/rotations';
import type { AdvanceRotationInput, RotationStep } from '../domain';
import { afterAssignmentStarted } from '../use-cases/assignments/after-change';
import { advanceRotation } from '../use-cases/rotation/advance';

export interface RotationActivityDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

export function createRotationActivities(deps: RotationActivityDeps) {
  const { prisma } = deps;
  // The activities are made when the worker starts: a period missed since then was not for want of a worker.
  const workerSince = new Date();
  return {
    /**
     * Hands out what is due by the workflow's clock (or this worker's, if it is ahead), then what follows
     * the period in progress's assignment (its expiry clock) — on every step, so a step retried after its
     * transaction committed still gives the assignment its timer.
     */
    async advanceRotation(input: AdvanceRotationInput): Promise<RotationStep> {
      const asOf = new Date(input.asOf);
      const now = new Date(Math.max(asOf.getTime(), Date.now()));
      const { step, wake } = await advanceRotation(prisma, input.rotationKey, now, { asOf, workerSince });
      if (wake) await afterAssignmentStarted(deps, wake);
      return step;
    },

    /** An operator canceled the rotation's workflow: the rotation stops, as a DELETE would. */
    stopRotationByOperator: (rotationKey: string): Promise<boolean> => stopRotationByOperator(prisma, rotationKey),
  };
}
