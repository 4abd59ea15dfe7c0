import { allHandlersFinished, condition, proxyActivities, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import { continueAsNewOnTarget, targetVersionChanged } from '../versioning';
import type { createActivities } from '../../activities';
import { describeQueue, routingCapacityChangedSignal, routingQueueStateQuery, type DrainResult, type RoutingQueueInput } from '../../domain';

// A database that is down delays the drain; the clients keep their places in PostgreSQL meanwhile. The
// drain heartbeats after each assignment, so one whose worker was killed is retried within seconds.
const { drainRoutingQueue } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** While clients wait, the queue looks again this often even if no signal came (one lost after a crash, say). */
const RECHECK_MS = 60_000;

/**
 * The clock of one routing policy's queue; PostgreSQL holds the queue. Each drain assigns waiting
 * clients oldest first while someone is eligible; then the run waits for a signal (capacity freed, a
 * client queued) or for the next shift start or absence end among the members. An empty queue ends the
 * run; the next client queued starts another (signal-with-start).
 */
export async function routingQueue(input: RoutingQueueInput): Promise<{ outcome: 'empty' | 'gone' }> {
  let changed = false;
  let last: DrainResult | null = null;
  setHandler(routingCapacityChangedSignal, () => {
    changed = true;
  });
  setHandler(routingQueueStateQuery, () => last);

  for (;;) {
    changed = false;
    const result = await drainRoutingQueue(input);
    last = result;
    setCurrentDetails(describeQueue(result));
    if (result.gone) return { outcome: 'gone' };
    // A drain that stopped at its batch size goes on at once.
    if (result.waiting < 0) continue;
    if (result.waiting === 0) {
      await condition(allHandlersFinished);
      if (changed) continue;
      return { outcome: 'empty' };
    }
    const untilChange = result.nextChangeAt ? Date.parse(result.nextChangeAt) - Date.now() + 500 : RECHECK_MS;
    const summary = result.nextChangeAt ? `Wait for capacity or ${result.nextChangeAt}` : 'Wait for capacity';
    await condition(() => changed, Math.max(1000, Math.min(untilChange, RECHECK_MS)), { summary });
    if (workflowInfo().continueAsNewSuggested || targetVersionChanged()) {
      await condition(allHandlersFinished);
      await continueAsNewOnTarget<typeof routingQueue>(input);
    }
  }
}
