import {
  ActivityFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  ActivityFailureType,
  MESSAGE_STATUS,
  messageChangedSignal,
  type MessageStatus,
  WORKFLOW_SEARCH_ATTRIBUTES_PATCH,
  sendMessageStateQuery,
  type SendMessageInput,
  type SendMessageResult,
  type SendMessageState,
} from './definitions';
import { nextSleepMs } from './timers';

type Activities = ReturnType<typeof createActivities>;

const { loadMessageStatus, claimMessageForSending, recordMessageSent, recordMessageFailed, cancelMessageByOperator } = proxyActivities<Activities>({
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
 * The database row is the truth: a signal only says "re-read it" (a cancel). An operator's "Request
 * Cancellation" in the Temporal UI cancels a message that is still waiting (canceled, by `operator`);
 * once it is being sent the hand-over runs to its end, as POST …/cancel answers 409 then.
 */
export async function sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
  const state: SendMessageState = { phase: 'waiting', sendAt: input.sendAt, nextWakeAt: null };
  const readable = patched(WORKFLOW_SEARCH_ATTRIBUTES_PATCH);
  const show = (status: MessageStatus) => {
    setCurrentDetails(`Message ${input.messageId}: ${status}${status === 'scheduled' ? `, send at ${input.sendAt}` : ''}`);
    if (readable) upsertSearchAttributes([{ key: MESSAGE_STATUS, value: status }]);
  };
  const signal = { changed: false };
  setHandler(messageChangedSignal, () => {
    signal.changed = true;
  });
  setHandler(sendMessageStateQuery, () => state);

  try {
    show('scheduled');
    const ended = await waitUntilDue(input, state, signal);
    if (ended) return done(state, ended, show);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    const status = await CancellationScope.nonCancellable(() => cancelMessageByOperator(input.messageId));
    if (status) show(status);
    throw error;
  }

  // Once claimed, the message is on its way: a cancellation request no longer stops it.
  return CancellationScope.nonCancellable(async () => {
    state.phase = 'sending';
    state.nextWakeAt = null;
    const claim = await claimMessageForSending(input.messageId);
    if (claim.status !== 'claimed') return done(state, claim.status, show);
    show('sending');

    let delivered: Awaited<ReturnType<Activities['deliverMessage']>>;
    try {
      delivered = await deliverMessage(input.messageId);
    } catch (error) {
      await recordMessageFailed({ messageId: input.messageId, error: describeFailure(error) });
      return done(state, 'failed', show);
    }
    await recordMessageSent({ messageId: input.messageId, ...delivered });
    return done(state, 'sent', show);
  });
}

/** Sleeps until the message is due; returns how it ended if its row says it is over before that. */
async function waitUntilDue(
  input: SendMessageInput,
  state: SendMessageState,
  signal: { changed: boolean },
): Promise<SendMessageResult['outcome'] | undefined> {
  const deadline = Date.parse(input.sendAt);
  for (;;) {
    if (signal.changed) {
      signal.changed = false;
      const status = await loadMessageStatus(input.messageId);
      if (status === 'canceled' || status === 'sent' || status === 'failed') return status;
    }
    const now = Date.now();
    if (deadline <= now) return undefined;
    const { sleepMs, reachesDeadline } = nextSleepMs(deadline, now);
    state.nextWakeAt = new Date(now + sleepMs).toISOString();
    const summary = reachesDeadline ? `Send at ${input.sendAt}` : `Wait one chunk, until ${state.nextWakeAt} (send at ${input.sendAt})`;
    if (await condition(() => signal.changed, sleepMs, { summary })) continue;
    if (!reachesDeadline || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof sendMessage>(input);
    }
  }
}

function done(state: SendMessageState, outcome: SendMessageResult['outcome'], show: (status: MessageStatus) => void): SendMessageResult {
  state.phase = 'done';
  state.nextWakeAt = null;
  show(outcome);
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
