import { allHandlersFinished, condition, continueAsNew, proxyActivities, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import { firstResponseAnsweredSignal, type FirstResponseInput } from '../../domain';
import { nextSleepMs } from '../timers';

// A database that is down delays the reassignment; the decision's row keeps the clock's start.
const { checkFirstResponse } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** With no working time ahead for the owner, the clock looks again this often (its hours may change). */
const NO_HOURS_RECHECK_MS = 60 * 60 * 1000;

/**
 * The first-response clock of one routing decision; PostgreSQL holds when the owner got the client and
 * whether it answered. The run sleeps until the deadline (a durable timer), then the activity reassigns
 * or escalates, and the clock starts again for the new owner. An answer's signal ends it early.
 * An older build's shape: no longer started (the client's run holds the clocks), kept for the runs in
 * flight at an upgrade; its step acts only on a decision still its own, and it ends once taken over.
 */
export async function routingFirstResponse(input: FirstResponseInput): Promise<{ outcome: 'answered' | 'escalated' | 'ended' }> {
  let answered = false;
  setHandler(firstResponseAnsweredSignal, () => {
    answered = true;
  });
  for (;;) {
    const step = await checkFirstResponse(input);
    if (step.state === 'done') {
      setCurrentDetails(`Over: ${step.outcome}`);
      await condition(allHandlersFinished);
      return { outcome: step.outcome };
    }
    if (step.state === 'reassigned') continue;
    setCurrentDetails(`${step.reassignments} reassignment(s); the owner must answer by ${step.dueAt ?? 'its next working hours'}`);
    const { sleepMs, reachesDeadline } = step.dueAt ? nextSleepMs(Date.parse(step.dueAt), Date.now()) : { sleepMs: NO_HOURS_RECHECK_MS, reachesDeadline: false };
    // A timer ends a little after the deadline, so the step finds it passed.
    await condition(() => answered, sleepMs + (reachesDeadline ? 250 : 0), { summary: step.dueAt ? `First response due at ${step.dueAt}` : 'Owner has no working time ahead' });
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof routingFirstResponse>(input);
    }
  }
}
