import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { SweepWebhooksInput, SweepWebhooksResult } from '../domain';

const { handOverPendingDeliveries } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * Run by a Temporal Schedule every 30 seconds: starts the delivery workflow of each webhook delivery
 * that was committed but never handed over (the process died in between), so that nothing depends on a
 * process surviving between the commit and the start.
 */
export async function sweepWebhookDeliveries(input: SweepWebhooksInput = {}): Promise<SweepWebhooksResult> {
  return handOverPendingDeliveries(input);
}
