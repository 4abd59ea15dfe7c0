import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../../db/prisma';
import { activeRotationsOfClient, rotationClockOf, stopRotationsByOperator, takeOverRotationClocks } from '../../db/rotations';
import type { RotationClock, RotationStep } from '../../domain';
import { ENDED_STEP, type StepClock } from '../../domain/rotation-advance';
import { releaseRotationRun, wakeRotation } from '../../starters/rotation-workflow';
import { afterAssignmentStarted } from '../assignments/after-change';
import { advanceRotation } from './advance';

/*
 * The rotations' clocks as the client's run (and an older build's per-rotation run, `workflowId`) keeps
 * them: a step as of the run's clock, the take-over, an operator's cancel.
 */

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
 * An older build's per-rotation run: one step, then what follows the period in progress's assignment
 * (its clock, the client's run) — on every step, so a step retried after its transaction committed still
 * gives the assignment its clock. A rotation the client's run holds is not this run's: it is told the
 * rotation is gone (it ends), and the client's run is told of it. `callerWorkflowId`: asked only then.
 */
export async function advanceRotationOfRun(deps: RotationClockDeps, input: { rotationKey: string; asOf: string }, callerWorkflowId: () => string, workerSince: Date): Promise<RotationStep> {
  const row = await rotationClockOf(deps.prisma, input.rotationKey);
  if (row && row.status === 'active' && row.workflowId !== callerWorkflowId()) {
    if (!row.workflowId) await wakeRotation(deps.temporal, row);
    return ENDED_STEP;
  }
  const { step, wake } = await advanceAsOf(deps, input.rotationKey, input.asOf, workerSince);
  if (wake) await afterAssignmentStarted(deps, wake);
  return step;
}

/**
 * The client's run: every active rotation of the client, taken over from an older build's run if one
 * held it (that run is told, and ends), then stepped as of the run's clock.
 */
export async function advanceClientRotations(deps: RotationClockDeps, input: { clientPk: string; asOf: string }, workerSince: Date): Promise<RotationClock[]> {
  const rows = await activeRotationsOfClient(deps.prisma, input.clientPk);
  const held = rows.filter((row) => row.workflowId);
  if (held.length > 0) {
    await takeOverRotationClocks(deps.prisma, held.map((row) => row.key));
    for (const row of held) await releaseRotationRun(deps.temporal, row.workflowId!);
  }
  const clocks: RotationClock[] = [];
  for (const row of rows) clocks.push({ ...(await advanceAsOf(deps, row.key, input.asOf, workerSince)).step, rotationKey: row.key });
  return clocks;
}

/** An operator canceled an older per-rotation run: its rotation stops, as a DELETE would, while that run still holds it. */
export const stopRotationOfRun = async (deps: RotationClockDeps, rotationKey: string, workflowId: string): Promise<boolean> => (await stopRotationsByOperator(deps.prisma, { rotationKey, workflowId })) > 0;

/** An operator canceled the client's run: every rotation of the client it holds stops, as stopped by an operator. */
export const stopClientRotations = (deps: RotationClockDeps, clientPk: string): Promise<number> => stopRotationsByOperator(deps.prisma, { clientPk, workflowId: null });
