import type { SweepWebhooksInput, SweepWebhooksResult } from '../../domain';
import { scheduledActivity } from '../scheduled-activity';

const handOverPendingDeliveries = scheduledActivity('handOverPendingDeliveries', { startToCloseTimeout: '10 minutes', heartbeatTimeout: '1 minute' });

/**
 * Run by a Temporal Schedule every 30 seconds: starts the delivery workflow of each webhook delivery
 * that was committed but never handed over (the process died in between), so that nothing depends on a
 * process surviving between the commit and the start.
 */
export async function sweepWebhookDeliveries(input: SweepWebhooksInput = {}): Promise<SweepWebhooksResult> {
  return handOverPendingDeliveries(input);
}
