import type { Client as TemporalClient } from '@temporalio/client';
import { wakeClientRun, type ClientKeys } from './client-workflow';

/* A routing decision's first-response clock is its client's run (src/starters/client-workflow.ts). */

/**
 * Hands a routed assignment's clocks — its expiry and its decision's first response — to its client's run
 * (started if none is open), which re-reads the client's assignments and steps its open decisions.
 */
export async function startFirstResponseClock(temporal: TemporalClient, baseTaskQueue: string, client: ClientKeys): Promise<void> {
  await wakeClientRun(temporal, baseTaskQueue, client, ['assignments', 'firstResponses']);
}

/** Tells the client's run to look at its decisions' first-response clocks now (an owner answered: it drops the clock). */
export async function lookAtFirstResponses(temporal: TemporalClient, baseTaskQueue: string, client: ClientKeys): Promise<void> {
  await wakeClientRun(temporal, baseTaskQueue, client, ['firstResponses']);
}
