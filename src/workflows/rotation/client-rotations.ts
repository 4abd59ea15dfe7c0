import { describeRotationStep, type RotationClock, type RotationStep } from '../../domain';

/* The client's run's view of its rotations' period boundaries (src/workflows/assignments/client-ownership.ts). */

/** A database clock slightly behind the worker's must not turn the loop into a busy one. */
const MIN_RECHECK_MS = 1000;

export interface RotationWake extends RotationClock {
  /** When the run steps the rotation next (its next boundary), in the workflow's time. */
  wakeAt: number;
}

/** The active rotations of a step and when each is due next, as of `nowMs`. */
export function rotationWakes(clocks: RotationClock[], nowMs: number): RotationWake[] {
  return clocks
    .filter((clock) => clock.state === 'active' && clock.nextChangeAt)
    .map((clock) => {
      const at = Date.parse(clock.nextChangeAt!);
      return { ...clock, wakeAt: at > nowMs ? at : nowMs + MIN_RECHECK_MS };
    });
}

/** The rotations as the run's state query shows them. */
export const rotationClocksOf = (wakes: RotationWake[]): RotationClock[] => wakes.map(({ wakeAt: _wakeAt, ...clock }) => clock);

/** "rotation …: a2 (agent 2 of 3) until …; next change at …", for the run's current details. */
export function describeRotations(wakes: RotationWake[]): string[] {
  return wakes.map((w) => describeRotationStep(w));
}

/**
 * What a PUT waiting on the client's run is answered: the rotation's step once the run has applied the
 * version it waits for, or whatever a step begun after it arrived found (a row stopped or gone since).
 */
export class RotationSteps {
  private last = new Map<string, RotationStep>();
  private begun = 0;
  private done = 0;

  /** A step of every rotation begins; returns its number. */
  begin(): number {
    return ++this.begun;
  }

  /** Step `seq` ended with these rotations (the active ones, and any it found stopped). */
  end(seq: number, clocks: RotationClock[]): void {
    this.last = new Map(clocks.map(({ rotationKey, ...step }) => [rotationKey, step]));
    this.done = Math.max(this.done, seq);
  }

  /** A test for the run's `condition`: the answer for `version` of `rotationKey`, once there is one. */
  answerFor(rotationKey: string, version: number): () => RotationStep | undefined {
    const after = this.begun;
    return () => {
      const step = this.last.get(rotationKey);
      if (step && step.version >= version) return step;
      if (this.done > after) return step ?? { state: 'ended', version: 0, nextChangeAt: null, current: null, next: null };
      return undefined;
    };
  }
}
