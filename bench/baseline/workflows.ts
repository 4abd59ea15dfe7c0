import { condition, defineUpdate, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { RawActivities } from './activities';

/*
 * The raw Temporal pipelines the project's figures are compared with: the least Temporal work that
 * does the same job, with no database row, search attribute, summary or payload codec of the project.
 */

const { rawDeliver } = proxyActivities<RawActivities>({ startToCloseTimeout: '10 seconds' });
const { rawInsert } = proxyLocalActivities<RawActivities>({ startToCloseTimeout: '10 seconds' });

/** A message: started with `startDelay` until it is due, then one activity that "sends" it. */
export async function rawDelayedSend(id: string): Promise<void> {
  await rawDeliver(id);
}

/** An interactive request: one local activity (one INSERT), its answer waited for by the caller. */
export async function rawAssign(id: string): Promise<string> {
  await rawInsert(id);
  return id;
}

/** One assign of a client: the request's id (for its INSERT) and when the assignment ends (epoch ms). */
export interface RawClientAssign {
  requestId: string;
  dtUntil: number;
}

export const rawClientAssignUpdate = defineUpdate<string, [RawClientAssign]>('assign');

/**
 * A client's long-lived run, reached by Update-with-Start: each `assign` runs one local activity (one
 * INSERT) and answers; the run keeps one timer, until the earliest `dtUntil`, re-armed after each update.
 */
export async function rawClientWorkflow(): Promise<void> {
  let earliest = Infinity;
  let updates = 0;
  setHandler(rawClientAssignUpdate, async ({ requestId, dtUntil }) => {
    await rawInsert(requestId);
    earliest = Math.min(earliest, dtUntil);
    updates++;
    return requestId;
  });
  for (;;) {
    const seen = updates;
    const woken = Number.isFinite(earliest) ? await condition(() => updates !== seen, Math.max(1, earliest - Date.now())) : await condition(() => updates !== seen).then(() => true);
    if (!woken) earliest = Infinity; // the earliest assignment ended: nothing else to do in a baseline
  }
}
