import { activityInfo } from '@temporalio/activity';
import type { AdvanceRotationInput, RotationClock, RotationStep } from '../../domain';
import { advanceClientRotations, advanceRotationOfRun, stopClientRotations, stopRotationOfRun, type RotationClockDeps } from '../../use-cases/rotation/clocks';

export type RotationActivityDeps = RotationClockDeps;

/** The run that called: an older per-rotation run acts only on a rotation it still holds. */
const callerWorkflowId = () => {
  const workflowId = activityInfo().workflowExecution?.workflowId;
  if (!workflowId) throw new Error('Called outside a workflow');
  return workflowId;
};

export function createRotationActivities(deps: RotationActivityDeps) {
  // The activities are made when the worker starts: a period missed since then was not for want of a worker.
  const workerSince = new Date();
  return {
    /** An older build's per-rotation run (`rotation`): one step (src/use-cases/rotation/clocks.ts). */
    advanceRotation: (input: AdvanceRotationInput): Promise<RotationStep> => advanceRotationOfRun(deps, input, callerWorkflowId, workerSince),

    /**
     * The client's run: every active rotation of the client, taken over and stepped as of the run's
     * clock. The client's run re-reads its assignments after it: a period handed out is one of them.
     */
    advanceClientRotations: (input: { clientPk: string; asOf: string }): Promise<RotationClock[]> => advanceClientRotations(deps, input, workerSince),

    /** An operator canceled an older per-rotation run: its rotation stops, as a DELETE would, while that run still holds it. */
    stopRotationByOperator: (rotationKey: string): Promise<boolean> => stopRotationOfRun(deps, rotationKey, callerWorkflowId()),

    /** An operator canceled the client's run: every rotation of the client it holds stops, as stopped by an operator. */
    stopClientRotationsByOperator: (input: { clientPk: string }): Promise<number> => stopClientRotations(deps, input.clientPk),
  };
}
