import type { RotationClock } from '../../domain';
import { advanceClientRotations, type RotationClockDeps } from '../../use-cases/rotation/clocks';

export type RotationActivityDeps = RotationClockDeps;

export function createRotationActivities(deps: RotationActivityDeps) {
  // The activities are made when the worker starts: a period missed since then was not for want of a worker.
  const workerSince = new Date();
  return {
    /**
     * The client's run: every active rotation of the client, taken over and stepped as of the run's
     * clock. The client's run re-reads its assignments after it: a period handed out is one of them.
     */
    advanceClientRotations: (input: { clientPk: string; asOf: string }): Promise<RotationClock[]> => advanceClientRotations(deps, input, workerSince),
  };
}
