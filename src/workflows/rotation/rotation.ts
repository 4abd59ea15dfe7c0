import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import {
  CANCEL_KEEPS_ROWS_PATCH,
  describeRotationStep,
  rotationAppliedUpdate,
  rotationChangedSignal,
  rotationStateQuery,
  type RotationInput,
  type RotationResult,
  type RotationStep,
} from '../../domain';
import { nextSleepMs } from '../timers';

// No overall limit: a database that is down delays the hand-over, which then happens from the
// scheduled boundary (the step reads the schedule, not the time it finally runs).
const { advanceRotation, stopRotationByOperator } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * The clock of one (client, user) rotation; PostgreSQL holds the rotation itself. Each step hands out
 * the periods that are due and says when the next one starts; the run sleeps until then and continues
 * as new at each boundary. A signal (DELETE) or an update (PUT, which waits for the answer) makes it
 * step at once. An operator's "Request Cancellation" in the Temporal UI stops the run and leaves the
 * rotation (before CANCEL_KEEPS_ROWS_PATCH it stopped the rotation).
 * An older build's shape: no longer started (the client's run holds the boundaries), kept for the runs in
 * flight at an upgrade; its step acts only on a rotation still its own, and it ends once taken over.
 */
export async function rotation(input: RotationInput): Promise<RotationResult> {
  try {
    return await rotate(input);
  } catch (error) {
    if (isCancellation(error) && !patched(CANCEL_KEEPS_ROWS_PATCH)) await CancellationScope.nonCancellable(() => stopRotationByOperator(input.rotationKey));
    throw error;
  }
}

async function rotate(input: RotationInput): Promise<RotationResult> {
  let changed = false;
  let requested = 0;
  let applied = 0;
  /** The row is gone (its client deleted): no version will ever be applied. */
  let gone = false;
  let last: RotationStep | null = null;
  setHandler(rotationChangedSignal, () => {
    changed = true;
  });
  setHandler(rotationAppliedUpdate, async (version) => {
    requested = Math.max(requested, version);
    await condition(() => applied >= version || gone);
    return last!;
  });
  setHandler(rotationStateQuery, () => last);
  const wanted = () => changed || requested > applied;

  for (;;) {
    changed = false;
    const step = await advanceRotation({ rotationKey: input.rotationKey, asOf: new Date().toISOString() });
    last = step;
    applied = Math.max(applied, step.version);
    gone = step.state === 'ended' && step.version === 0;
    setCurrentDetails(describeRotationStep(step));

    if (step.state === 'ended') {
      // A PUT may set it going again before this run ends: its signal arrives first.
      await condition(() => allHandlersFinished() || (!gone && wanted()));
      if (!gone && wanted()) continue;
      return { outcome: 'stopped' };
    }

    const { sleepMs, reachesDeadline } = nextSleepMs(Date.parse(step.nextChangeAt!), Date.now());
    if (sleepMs > 0) {
      const summary = reachesDeadline ? `Next period at ${step.nextChangeAt}` : `Wait one chunk (next period at ${step.nextChangeAt})`;
      if ((await condition(wanted, sleepMs, { summary })) && !workflowInfo().continueAsNewSuggested) continue;
    } else if (!workflowInfo().continueAsNewSuggested) {
      continue;
    }
    // A boundary (or the end of a long wait's chunk): the next run's first step hands the period out.
    // An update still waiting is answered here first; a new run would not know it.
    if (requested > applied) continue;
    await condition(allHandlersFinished);
    await continueAsNew<typeof rotation>(input);
  }
}
