import type { Client as TemporalClient } from '@temporalio/client';
import { runsEndedAtUpgradeQuery, UPGRADE_TERMINATE_REASON } from '../domain';
import { executionsOf, type ExecutionIds } from '../temporal-client/executions';

/* The one place the runs of an earlier workflow generation are ended (docs/design.md, "Upgrading runs from before Worker Versioning"). */

/** How many terminations are in flight at once. */
const AT_ONCE = 20;
/** Visibility lags a little behind: a listing that still shows runs ended a moment ago is read again, a few times. */
const LISTINGS = 5;

/** The open runs the query finds. */
async function openRuns(temporal: TemporalClient, query: string): Promise<ExecutionIds[]> {
  const runs: ExecutionIds[] = [];
  for await (const run of executionsOf(temporal, query)) runs.push(run);
  return runs;
}

/** Ends the run (that run only, by its run id); one that ended meanwhile is left as it is. */
async function terminate(temporal: TemporalClient, run: ExecutionIds): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(run.workflowId, run.runId).terminate(UPGRADE_TERMINATE_REASON);
    return true;
  } catch (error) {
    if ((error as Error).name === 'WorkflowNotFoundError') return false;
    throw error;
  }
}

/**
 * Terminates the open runs of the types that the current generation cannot replay, on the service's task
 * queues, started before `cutoff`, with a reason an operator reads in the UI. Returns how many it ended.
 */
export async function endRunsOfEarlierGeneration(temporal: TemporalClient, baseTaskQueue: string, cutoff: Date): Promise<number> {
  const query = runsEndedAtUpgradeQuery(baseTaskQueue, cutoff);
  const done = new Set<string>();
  let ended = 0;
  for (let listing = 0; listing < LISTINGS; listing++) {
    const runs = (await openRuns(temporal, query)).filter((run) => !done.has(run.runId));
    if (runs.length === 0) break;
    for (let i = 0; i < runs.length; i += AT_ONCE) {
      const slice = runs.slice(i, i + AT_ONCE);
      const results = await Promise.all(slice.map((run) => terminate(temporal, run)));
      ended += results.filter(Boolean).length;
      for (const run of slice) done.add(run.runId);
    }
  }
  return ended;
}
