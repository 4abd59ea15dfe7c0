import { ActivityFailure, CancellationScope, isCancellation, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { DEFAULT_WEBHOOK_RETRY, WEBHOOK_BACKOFF_COEFFICIENT, type DeliverWebhookInput, type DeliverWebhookResult } from './definitions';

type Activities = ReturnType<typeof createActivities>;

const { abandonWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One run per delivery row (`webhook/{deliveryId}`): one activity, retried with exponential backoff
 * until the receiver takes the event, refuses it, or `giveUpAfterMs` (3 days) has passed; then the row
 * is abandoned. An operator's "Request Cancellation" abandons it too. The input holds ids and settings:
 * the event, the URL and the secrets stay in PostgreSQL.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
  const retry = { ...DEFAULT_WEBHOOK_RETRY, ...input.retry };
  const { deliverWebhookEvent } = proxyActivities<Activities>({
    // The POST's own timeout is at most a minute (WEBHOOK_TIMEOUT_MS).
    startToCloseTimeout: '90 seconds',
    scheduleToCloseTimeout: retry.giveUpAfterMs,
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: WEBHOOK_BACKOFF_COEFFICIENT,
      maximumInterval: retry.maximumIntervalMs,
      nonRetryableErrorTypes: ['InvalidData'],
    },
  });
  setCurrentDetails(`Delivery ${input.deliveryId}: delivering`);
  try {
    const result = await deliverWebhookEvent(input);
    setCurrentDetails(`Delivery ${input.deliveryId}: ${result.outcome}`);
    return result;
  } catch (error) {
    const reason = isCancellation(error) ? 'Canceled by an operator' : `Gave up: ${lastReason(error)}`;
    await CancellationScope.nonCancellable(() => abandonWebhookDelivery({ deliveryId: input.deliveryId, reason }));
    setCurrentDetails(`Delivery ${input.deliveryId}: abandoned`);
    if (isCancellation(error)) throw error;
    return { outcome: 'abandoned' };
  }
}

/** The innermost message of the failure: our own text of the last attempt's answer. */
function lastReason(error: unknown): string {
  let reason = 'retries ran out';
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (!(cause instanceof ActivityFailure) && cause.message) reason = cause.message;
  }
  return reason;
}
