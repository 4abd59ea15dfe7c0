import {
  ActivityFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import {
  ActivityFailureType,
  MESSAGE_STATUS,
  messageBatchChangedSignal,
  messageBatchStateQuery,
  type MessageBatchProgress,
  type MessageBatchState,
  type MessageStatus,
  type SendMessageBatchInput,
  type SendMessageBatchResult,
} from '../../domain';
import { attemptsWithin } from '../retry-budget';
import { continueAsNewIfSuggested, listenForChanges, sleepChunk } from '../durable-wait';

type Activities = ReturnType<typeof createActivities>;

/** Database steps, inside the workflow task: ten minutes of a database that keeps failing fails the run (the reconciler restarts it). */
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: attemptsWithin(10 * 60_000, { initialMs: 200, coefficient: 2, maximumMs: 10_000 }),
  },
});

/**
 * A chunk's hand-over: an activity task, heartbeating while it sends (and waits for its paced slots), retried
 * with backoff for up to an hour; each retry sends only what the provider has not accepted yet.
 */
const { sendBatchChunk } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes', nonRetryableErrorTypes: [ActivityFailureType.MessageNotFound] },
});

const emptyProgress = (): MessageBatchProgress => ({ chunks: 0, sent: 0, failed: 0, skipped: 0 });

/**
 * One run per batch (POST /messages/batch): sleeps until its next message is due, then claims its due
 * messages a chunk at a time and hands each chunk to the provider in an activity, `concurrency` chunks at
 * once, until none is left (a recipient's send window may leave some for later: it sleeps again).
 * The rows are the truth: a message canceled or opted out before its chunk is claimed is skipped, and a
 * run that resumes (after a Terminate and the reconciler's restart) sends first the chunks left sending.
 * An operator's Request Cancellation cancels what is still scheduled; claimed chunks finish sending.
 */
export async function sendMessageBatch(input: SendMessageBatchInput): Promise<SendMessageBatchResult> {
  const progress = input.progress ?? emptyProgress();
  const state: MessageBatchState = { phase: 'waiting', sendAt: input.sendAt, nextWakeAt: null, inFlight: 0, progress };
  const signal = listenForChanges(messageBatchChangedSignal, messageBatchStateQuery, () => state);
  let shown: MessageStatus | undefined = 'scheduled';
  const show = (status: MessageStatus) => {
    const { sent, failed, skipped } = progress;
    setCurrentDetails(`Batch ${input.batchId}: ${status}; ${sent} sent, ${failed} failed, ${skipped} skipped (canceled or opted out)`);
    if (status !== shown) upsertSearchAttributes([{ key: MESSAGE_STATUS, value: status }]);
    shown = status;
  };

  // Non-cancellable: a cancel requested while the run waited on its start delay is seen by the wait below.
  const plan = await CancellationScope.nonCancellable(() => local.planMessageBatch(input.batchId));
  if (!plan) {
    state.phase = 'done';
    return progress;
  }
  const run: BatchRun = { input, plan, state, progress, show, nextChunk: Math.max(input.nextChunk ?? 0, plan.nextChunk) };
  try {
    if (plan.resume.length > 0) await CancellationScope.nonCancellable(() => sendDue(run));
    for (;;) {
      signal.changed = false;
      const due = await local.nextDueInBatch(input.batchId);
      if (due === null) break;
      const deadline = Date.parse(due);
      const now = Date.now();
      if (deadline > now) {
        state.phase = 'waiting';
        await sleepChunk<typeof sendMessageBatch>({
          deadlineMs: deadline,
          flag: signal,
          beforeSleep: (wakeAt) => {
            state.nextWakeAt = wakeAt;
          },
          summary: () => `Send the batch's next messages at ${due}`,
          next: () => [{ ...input, nextChunk: run.nextChunk, progress }],
        });
        continue;
      }
      await CancellationScope.nonCancellable(() => sendDue(run));
      await continueAsNewIfSuggested<typeof sendMessageBatch>({ ...input, nextChunk: run.nextChunk, progress });
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(async () => {
      progress.skipped += await local.cancelBatchByOperator(input.batchId);
      show('canceled');
    });
    throw error;
  }
  await local.markBatchFinished(input.batchId);
  state.phase = 'done';
  state.nextWakeAt = null;
  show(progress.sent > 0 || progress.failed === 0 ? 'sent' : 'failed');
  return progress;
}

/** A batch's run as its sends see it: the plan, the progress shown, and the next chunk to claim. */
interface BatchRun {
  input: SendMessageBatchInput;
  plan: { chunkSize: number; concurrency: number; resume: number[] };
  state: MessageBatchState;
  progress: MessageBatchProgress;
  show: (status: MessageStatus) => void;
  nextChunk: number;
}

/** Hands chunk `chunk` over; `fresh`: claimed by this run just now, so no hand-over of it was attempted yet. */
async function send({ input, state, progress, show }: BatchRun, chunk: number, fresh: boolean): Promise<void> {
  state.inFlight++;
  try {
    const result = await sendBatchChunk({ batchId: input.batchId, chunk, fresh });
    progress.sent += result.sent;
    progress.failed += result.failed;
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const result = await local.giveUpBatchChunk({ batchId: input.batchId, chunk, error: `Gave up retrying: ${error.cause?.message ?? error.message}` });
    progress.sent += result.sent;
    progress.failed += result.failed;
  } finally {
    state.inFlight--;
    progress.chunks++;
    show('sending');
  }
}

/** Claims and sends everything due now, `concurrency` chunks at once. */
async function sendDue(run: BatchRun): Promise<void> {
  const { input, plan, state, progress, show } = run;
  state.phase = 'sending';
  state.nextWakeAt = null;
  show('sending');
  const inFlight = new Map<number, Promise<void>>();
  const start = (chunk: number, fresh: boolean) => inFlight.set(chunk, send(run, chunk, fresh).finally(() => inFlight.delete(chunk)));
  for (const chunk of plan.resume) {
    if (inFlight.size >= plan.concurrency) await Promise.race(inFlight.values());
    start(chunk, false);
  }
  plan.resume = [];
  for (let due = true; due || inFlight.size > 0; ) {
    while (due && inFlight.size < plan.concurrency) {
      const claim = await local.claimBatchChunk({ batchId: input.batchId, chunk: run.nextChunk, limit: plan.chunkSize, dueBy: new Date(Date.now()).toISOString() });
      progress.skipped += claim.suppressed;
      if (!claim.existed && claim.sending === 0) {
        due = false;
        break;
      }
      const chunk = run.nextChunk++;
      if (claim.sending > 0) start(chunk, !claim.existed);
    }
    if (inFlight.size > 0) await Promise.race(inFlight.values());
  }
}
