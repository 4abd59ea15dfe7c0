import {
  type ActivityOptions,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import {
  ActivityFailureType,
  MessageRunFailureType,
  type MessageRunFailureDetails,
  messageRunFailureMessage,
  MESSAGE_RECEIPT_WAIT_MS,
  type MessageOutcome,
  MESSAGE_STATUS,
  messageChangedSignal,
  type MessageStatus,
  sendMessageStateQuery,
  sendsReceipts,
  type SendMessageInput,
  type SendMessageResult,
  type SendMessageState,
} from '../../domain';
import { messageDueAt } from '../../domain/message-due';
import { listenForChanges, sleepChunk, type ChangeFlag } from '../durable-wait';

type Activities = ReturnType<typeof createActivities>;

const DATABASE_STEP: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds' },
};

const NON_RETRYABLE_DELIVERY = [ActivityFailureType.ProviderRejected, ActivityFailureType.MessageAlreadySent, ActivityFailureType.MessageNotFound];

/**
 * Transient provider failures (network, timeouts, 5xx, 429) retry with backoff for up to an hour,
 * heartbeating while the provider is waited for; a rejection (other 4xx) is a non-retryable failure and
 * ends the hand-over at once.
 */
const { deliverMessage } = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  heartbeatTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '2 minutes', nonRetryableErrorTypes: NON_RETRYABLE_DELIVERY },
});

/**
 * The database steps are local activities, and a due message goes
 * from claim to `sent` in one of them (`sendDue`), inside the one workflow task its start delay
 * (or timer) wakes: two workflow activations per message, instead of three activity tasks and four
 * workflow tasks through the server, which is what made 1,000 messages due at once late by a minute.
 * That fast path makes three quick attempts (1.5 s of backoff, inside the task); a provider still failing
 * after them gets the durable path above (`deliverMessage`, an activity task with its hour of retries
 * and its heartbeat). An attempt is bounded by the webhook's own timeout plus a margin, since a local
 * activity cannot heartbeat; a worker killed during it loses its workflow task, whose retry runs the
 * attempt again, and the attempt finds the provider's acceptance recorded rather than handing the
 * message over twice.
 */
const local = proxyLocalActivities<Activities>(DATABASE_STEP);
const { sendDue } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '13 seconds',
  localRetryThreshold: '2 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE_DELIVERY },
});

/** Shows a status in the run's MessageStatus and details, with why it ended so (our words and codes only). */
type Show = (status: MessageStatus, reason?: string | null) => void;

/**
 * One run per message: waits durably until `sendAt`, or the later `deferredUntil` its send window set
 * (in bounded chunks, continuing as new between them), then claims the message, hands it to the
 * provider once and records `sent` or `failed`.
 * The database row is the truth: a signal only says "re-read it" (a cancel). An operator's "Request
 * Cancellation" in the Temporal UI cancels a message that is still waiting (canceled, by `operator`);
 * once it is being sent the hand-over runs to its end, as POST …/cancel answers 409 then. POST …/cancel
 * cancels the row, then requests the run's cancellation, so that it too ends Canceled.
 * A message handed to a carrier keeps its run open until the
 * carrier's final receipt (the receipt route signals it to re-read the row), for MESSAGE_RECEIPT_WAIT_MS
 * at most, so that MessageStatus and the details show what the API shows; the details say why a message
 * failed, was undelivered, suppressed or canceled.
 * A message that ends `failed` or `undelivered` ends its run Failed, after its row is final: see `failedRun`.
 */
export async function sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
  const result = await runMessage(input);
  if (result.outcome === 'failed' || result.outcome === 'undelivered') throw await failedRun(input.messageId, result.outcome);
  return result;
}

/**
 * The failure a run whose message failed (or a carrier reported undelivered) ends with, so that the
 * Temporal UI shows it red and its failure filter (ExecutionStatus = 'Failed') finds it: non-retryable,
 * typed MessageFailed or MessageUndelivered, with the row's reason and code (our words and codes only, no
 * phone and no text). Nothing starts such a run again: the reconciler restarts only rows still
 * `scheduled` or `sending`, and this row is final before the run fails.
 */
async function failedRun(messageId: string, outcome: 'failed' | 'undelivered'): Promise<ApplicationFailure> {
  // Non-cancellable: a cancellation request during the receipt's wait ended that wait, not this read.
  const row = await CancellationScope.nonCancellable(() => local.describeMessageStatus(messageId));
  const details: MessageRunFailureDetails = { messageId, outcome, reason: row.status === outcome ? row.reason : null, code: row.status === outcome ? (row.code ?? null) : null };
  return ApplicationFailure.create({ type: MessageRunFailureType[outcome], message: messageRunFailureMessage(details), nonRetryable: true, details: [details] });
}

async function runMessage(input: SendMessageInput): Promise<SendMessageResult> {
  const state: SendMessageState = { phase: 'waiting', sendAt: input.sendAt, ...(input.deferredUntil && { deferredUntil: input.deferredUntil }), nextWakeAt: null };
  // A status the run already shows (`scheduled`, given at start) is not upserted again: each upsert is a
  // visibility write in the server, and a message that is due sends in one task.
  let shown = workflowInfo().typedSearchAttributes.get(MESSAGE_STATUS);
  const show: Show = (status, reason) => {
    const when = status === 'scheduled' ? `, send at ${input.sendAt}${deferral(input)}` : '';
    setCurrentDetails(`Message ${input.messageId}: ${status}${when}${reason ? ` — ${reason}` : ''}`);
    if (status !== shown) upsertSearchAttributes([{ key: MESSAGE_STATUS, value: status }]);
    shown = status;
  };
  const signal = listenForChanges(messageChangedSignal, sendMessageStateQuery, () => state);

  // The outcome with its reason in the details, read from the row (an end that is not `sent`/`delivered`).
  const ended = async (outcome: MessageOutcome, reason?: string): Promise<SendMessageResult> => {
    if (reason || outcome === 'sent' || outcome === 'delivered' || outcome === 'read') return done(state, outcome, show, reason);
    const row = await local.describeMessageStatus(input.messageId);
    return done(state, outcome, show, row.status === outcome ? row.reason : null);
  };

  try {
    show('scheduled');
    const endedEarly = await waitUntilDue(input, state, signal);
    if (endedEarly) return await ended(endedEarly);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(async () => {
      if (await local.cancelMessageByOperator(input.messageId)) {
        const row = await local.describeMessageStatus(input.messageId);
        show(row.status, row.reason);
      }
    });
    throw error;
  }

  // Once claimed, the message is on its way: a cancellation request no longer stops it.
  const { result, awaitsReceipt } = await CancellationScope.nonCancellable(async () => {
    state.phase = 'sending';
    state.nextWakeAt = null;
    return handOver(input, show, ended);
  });
  // A cancel that won the race for the row (canceled before the claim) ends the run as Canceled.
  if (result.outcome === 'canceled' && CancellationScope.current().consideredCancelled) {
    throw new CancelledFailure(`Message ${input.messageId} was canceled before it was sent`);
  }
  if (!awaitsReceipt) return result;
  return awaitFinalReceipt(input, result, signal, show);
}

/**
 * A sent message waits for its carrier's final receipt: each signal (a receipt moved the row) re-reads
 * the row and shows it; a final status, MESSAGE_RECEIPT_WAIT_MS or a cancellation request ends the wait
 * with the status the row has then. A few events per receipt; no continue-as-new is needed.
 */
async function awaitFinalReceipt(input: SendMessageInput, sent: SendMessageResult, signal: { changed: boolean }, show: Show): Promise<SendMessageResult> {
  const deadline = Date.now() + MESSAGE_RECEIPT_WAIT_MS;
  let outcome = sent.outcome;
  try {
    for (;;) {
      const remaining = deadline - Date.now();
      const woken = remaining > 0 && (await condition(() => signal.changed, remaining, { summary: 'Await the carrier\'s receipt' }));
      signal.changed = false;
      const row = await local.describeMessageStatus(input.messageId);
      if (isOutcome(row.status)) outcome = row.status;
      show(outcome, row.status === outcome ? row.reason : null);
      if (!woken || outcome !== 'sent') return { outcome };
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    return { outcome };
  }
}

function isOutcome(status: MessageStatus): status is MessageOutcome {
  return status === 'sent' || status === 'delivered' || status === 'read' || status === 'undelivered' || status === 'failed' || status === 'canceled' || status === 'suppressed';
}

/**
 * The fast path's task ends with the outcome, so its status goes from `scheduled` to the outcome in one
 * upsert; `sending` is shown when the durable path takes over. Says whether a carrier will report and why it ended.
 */
async function handOver(
  input: SendMessageInput,
  show: Show,
  ended: (outcome: MessageOutcome, reason?: string) => Promise<SendMessageResult>,
): Promise<{ result: SendMessageResult; awaitsReceipt: boolean }> {
  let failure: unknown;
  try {
    const due = await sendDue(input.messageId);
    return { result: await ended(due.outcome), awaitsReceipt: due.awaitsReceipt };
  } catch (error) {
    failure = error;
  }
  const claim = await local.claimMessageForSending(input.messageId);
  if (claim.status !== 'claimed') return { result: await ended(claim.status), awaitsReceipt: false };
  if (!isFinal(failure)) {
    show('sending');
    try {
      const delivered = await deliverMessage(input.messageId);
      const outcome = await local.recordMessageSent({ messageId: input.messageId, ...delivered });
      return { result: await ended(outcome), awaitsReceipt: outcome === 'sent' && sendsReceipts(delivered.provider) };
    } catch (error) {
      failure = error;
    }
  }
  const rejection = rejectionOf(failure);
  const error = describeFailure(failure);
  await local.recordMessageFailed({ messageId: input.messageId, error, ...(rejection && { rejection }) });
  return { result: await ended('failed', error), awaitsReceipt: false };
}

/** A failure that no retry can heal (the provider rejected the message, its row is gone or no longer sending), wrapped or not. */
function isFinal(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure) return cause.nonRetryable || NON_RETRYABLE_DELIVERY.includes(cause.type as ActivityFailureType);
  }
  return false;
}

/** Sleeps until the message is due; returns how it ended if its row says it is over before that. */
async function waitUntilDue(
  input: SendMessageInput,
  state: SendMessageState,
  signal: ChangeFlag,
): Promise<SendMessageResult['outcome'] | undefined> {
  const deadline = dueAt(input);
  for (;;) {
    if (signal.changed) {
      signal.changed = false;
      const status = await local.loadMessageStatus(input.messageId);
      if (status === 'canceled' || status === 'sent' || status === 'failed') return status;
    }
    const now = Date.now();
    if (deadline <= now) return undefined;
    const when = `${input.sendAt}${deferral(input)}`;
    await sleepChunk<typeof sendMessage>({
      deadlineMs: deadline,
      flag: signal,
      beforeSleep: (wakeAt) => {
        state.nextWakeAt = wakeAt;
      },
      summary: (wakeAt, reachesDeadline) => (reachesDeadline ? `Send at ${when}` : `Wait one chunk, until ${wakeAt} (send at ${when})`),
      next: () => [input],
    });
  }
}

/** When the message goes out: `sendAt`, or later when its send window (quiet hours) defers it. */
function dueAt(input: SendMessageInput): number {
  return messageDueAt({ sendAt: new Date(input.sendAt), deferredUntil: input.deferredUntil ? new Date(input.deferredUntil) : null }).getTime();
}

/** Names the deferral in the run's details and timer summaries (times only: no phone, no text). */
function deferral(input: SendMessageInput): string {
  return dueAt(input) > Date.parse(input.sendAt) ? `, deferred until ${input.deferredUntil} by its send window` : '';
}

function done(state: SendMessageState, outcome: SendMessageResult['outcome'], show: Show, reason?: string | null): SendMessageResult {
  state.phase = 'done';
  state.nextWakeAt = null;
  show(outcome, reason);
  return { outcome };
}

/**
 * A carrier's refusal along the failure's cause chain: its code, and whether it means the recipient
 * unsubscribed (the ProviderRejected failure's details).
 */
function rejectionOf(error: unknown): { code: string; optOut: boolean } | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && cause.type === ActivityFailureType.ProviderRejected) {
      const detail = cause.details?.[0] as { code?: unknown; optOut?: unknown } | undefined;
      return typeof detail?.code === 'string' ? { code: detail.code, optOut: detail.optOut === true } : undefined;
    }
  }
  return undefined;
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
