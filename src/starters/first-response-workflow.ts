import type { Client as TemporalClient } from '@temporalio/client';
import { firstResponseAnsweredSignal } from '../domain';
import { wakeClientRun, type ClientKeys } from './client-workflow';

/*
 * A routing decision's first-response clock is its client's run (src/starters/client-workflow.ts). Nothing
 * starts a `routingFirstResponse` run: one still open at an upgrade runs until it ends, or until the
 * client's run takes its decision over and tells it to look again (docs/design.md, "Upgrading to one run per client").
 */

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

/**
 * Tells a `routingFirstResponse` run that held a decision's clock to look at it again: the client's run
 * took it over (or the owner answered), and that run ends. Best effort: at its deadline it reads the row anyway.
 */
export async function releaseFirstResponseRun(temporal: TemporalClient, workflowId: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(firstResponseAnsweredSignal);
  } catch {
    // Not running (ended, or never started): nothing waits for the answer.
  }
}
