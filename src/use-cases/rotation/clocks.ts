import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../../db/prisma';
import { activeRotationsOfClient, takeOverRotationClocks } from '../../db/rotations';
import type { RotationClock } from '../../domain';
import type { StepClock } from '../../domain/rotation-advance';
import { advanceRotation } from './advance';

/* The rotations' clocks as the client's run keeps them: a step as of the run's clock, and the take-over. */

export interface RotationClockDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/** Hands out what is due by the run's clock `asOf` (or this worker's, if it is ahead); `workerSince`: when the worker started. */
function advanceAsOf(deps: RotationClockDeps, rotationKey: string, asOfIso: string, workerSince: Date) {
  const asOf = new Date(asOfIso);
  return advanceRotation(deps.prisma, rotationKey, new Date(Math.max(asOf.getTime(), Date.now())), { asOf, workerSince } satisfies StepClock);
}

/**
 * The client's run: every active rotation of the client, taken over from the run that held it in data
 * from before one run per client, then stepped as of the run's clock.
 */
export async function advanceClientRotations(deps: RotationClockDeps, input: { clientPk: string; asOf: string }, workerSince: Date): Promise<RotationClock[]> {
  const rows = await activeRotationsOfClient(deps.prisma, input.clientPk);
  const held = rows.filter((row) => row.workflowId);
  if (held.length > 0) await takeOverRotationClocks(deps.prisma, held.map((row) => row.key));
  const clocks: RotationClock[] = [];
  for (const row of rows) clocks.push({ ...(await advanceAsOf(deps, row.key, input.asOf, workerSince)).step, rotationKey: row.key });
  return clocks;
}
