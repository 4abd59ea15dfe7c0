import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
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
