import { ActivityFailure, condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  ActivityFailureType,
  messageChangedSignal,
  sendMessageStateQuery,
  type SendMessageInput,
  type SendMessageResult,
  type SendMessageState,
} from './definitions';
import { nextSleepMs } from './timers';

type Activities = ReturnType<typeof createActivities>;

const { loadMessageStatus, claimMessageForSending, recordMessageSent, recordMessageFailed } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/**
 * Transient provider failures (network, timeouts, 5xx, 429) retry with backoff for up to an hour;
 * a rejection (other 4xx) is a non-retryable failure and ends the hand-over at once. The attempt
 * heartbeats while it waits for the provider (10 s webhook timeout), so a killed worker's attempt is
 * retried after 10 s rather than after the whole start-to-close timeout.
 */
const { deliverMessage } = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  heartbeatTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '2 minutes',
    nonRetryableErrorTypes: [ActivityFailureType.ProviderRejected, ActivityFailureType.MessageAlreadySent, ActivityFailureType.MessageNotFound],
  },
});

/**
 * One run per message: waits durably until `sendAt` (in bounded chunks, continuing as new between
 * them), then claims the message, hands it to the provider once and records `sent` or `failed`.
 * The database row is the truth: a signal only says "re-read it" (a cancel).
 */
export async function sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
  const state: SendMessageState = { phase: 'waiting', sendAt: input.sendAt, nextWakeAt: null };
  let changed = false;
  setHandler(messageChangedSignal, () => {
    changed = true;
  });
  setHandler(sendMessageStateQuery, () => state);

  const deadline = Date.parse(input.sendAt);
  for (;;) {
    if (changed) {
      changed = false;
      const status = await loadMessageStatus(input.messageId);
      if (status === 'canceled' || status === 'sent' || status === 'failed') return done(state, status);
    }
    const now = Date.now();
    if (deadline <= now) break;
    const { sleepMs, reachesDeadline } = nextSleepMs(deadline, now);
    state.nextWakeAt = new Date(now + sleepMs).toISOString();
    if (await condition(() => changed, sleepMs)) continue;
    if (!reachesDeadline || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof sendMessage>(input);
    }
  }

  state.phase = 'sending';
  state.nextWakeAt = null;
  const claim = await claimMessageForSending(input.messageId);
  if (claim.status !== 'claimed') return done(state, claim.status);

  let delivered: Awaited<ReturnType<Activities['deliverMessage']>>;
  try {
    delivered = await deliverMessage(input.messageId);
  } catch (error) {
    await recordMessageFailed({ messageId: input.messageId, error: describeFailure(error) });
    return done(state, 'failed');
  }
  await recordMessageSent({ messageId: input.messageId, ...delivered });
  return done(state, 'sent');
}

function done(state: SendMessageState, outcome: SendMessageResult['outcome']): SendMessageResult {
  state.phase = 'done';
  state.nextWakeAt = null;
  return { outcome };
}

/** The reasons along the failure's cause chain, e.g. "Gave up retrying: Webhook answered 503". */
function describeFailure(error: unknown): string {
  const reasons: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ActivityFailure) {
      if (cause.retryState === 'TIMEOUT' || cause.retryState === 'MAXIMUM_ATTEMPTS_REACHED') reasons.push('Gave up retrying');
    } else if (cause.message) {
      reasons.push(cause.message);
    }
  }
  return reasons.join(': ') || 'Delivery failed';
}
