import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  sleep,
} from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import { DEFAULT_WEBHOOK_RETRY, WEBHOOK_BACKOFF_COEFFICIENT, type DeliverWebhookInput, type DeliverWebhookResult } from '../../domain';

type Activities = ReturnType<typeof createActivities>;

const { abandonWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// The POST's own timeout is at most a minute (WEBHOOK_TIMEOUT_MS).
const ATTEMPT_TIMEOUT = '90 seconds';

/**
 * Most receivers answer the first attempt: it runs as a local activity, inside the run's first workflow
 * task, which halves what each delivery costs the Temporal server. Retries are a regular activity.
 */
const { deliverWebhookEvent: firstAttempt } = proxyLocalActivities<Activities>({
  startToCloseTimeout: ATTEMPT_TIMEOUT,
  retry: { maximumAttempts: 1 },
});

/**
 * One run per delivery row (`webhook/{deliveryId}`): the first attempt, then, if it did not get an
 * answer that ends the delivery, retries with exponential backoff until the receiver takes the event,
 * refuses it, or `giveUpAfterMs` (3 days) has passed since the first attempt; then the row is abandoned.
 * A receiver's Retry-After replaces the backoff for that wait. An operator's "Request Cancellation"
 * abandons it too. The input holds ids and settings: the event, the URL and the secrets stay in PostgreSQL.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
  const retry = { ...DEFAULT_WEBHOOK_RETRY, ...input.retry };
  const startedAt = Date.now();
  setCurrentDetails(`Delivery ${input.deliveryId}: delivering`);
  try {
    let result: DeliverWebhookResult;
    try {
      result = await firstAttempt(input);
    } catch (error) {
      if (isCancellation(error)) throw error;
      setCurrentDetails(`Delivery ${input.deliveryId}: retrying (${lastReason(error)})`);
      await sleep(retryDelayOf(error) ?? retry.initialIntervalMs);
      const { deliverWebhookEvent } = proxyActivities<Activities>({
        startToCloseTimeout: ATTEMPT_TIMEOUT,
        scheduleToCloseTimeout: Math.max(retry.giveUpAfterMs - (Date.now() - startedAt), 1000),
        retry: {
          initialInterval: retry.initialIntervalMs * WEBHOOK_BACKOFF_COEFFICIENT,
          backoffCoefficient: WEBHOOK_BACKOFF_COEFFICIENT,
          maximumInterval: retry.maximumIntervalMs,
          nonRetryableErrorTypes: ['InvalidData'],
        },
      });
      result = await deliverWebhookEvent(input);
    }
    setCurrentDetails(`Delivery ${input.deliveryId}: ${result.outcome}`);
    return result;
  } catch (error) {
    const reason = isCancellation(error) ? 'Canceled by an operator' : 'Gave up retrying';
    await CancellationScope.nonCancellable(() => abandonWebhookDelivery({ deliveryId: input.deliveryId, reason }));
    setCurrentDetails(`Delivery ${input.deliveryId}: abandoned`);
    if (isCancellation(error)) throw error;
    return { outcome: 'abandoned' };
  }
}

/** The receiver's Retry-After, which the attempt put in its failure's details (`nextRetryDelay` does not come back to workflow code). */
function retryDelayOf(error: unknown): number | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure) {
      const delay = (cause.details?.[0] as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
      return typeof delay === 'number' ? delay : undefined;
    }
  }
  return undefined;
}

/** The innermost message of the failure: our own text of the last attempt's answer. */
function lastReason(error: unknown): string {
  let reason = 'retries ran out';
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (!(cause instanceof ActivityFailure) && cause.message) reason = cause.message;
  }
  return reason;
}
