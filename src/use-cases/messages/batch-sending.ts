import {
  chunksStillSending,
  claimBatchChunk,
  closeScheduledInBatch,
  failChunkRemaining,
  findBatch,
  markBatchFinished,
  markChunkSent,
  nextDueInBatch,
  recordAcceptances,
  startChunkAttempt,
  type ChunkMessage,
} from '../../db/message-batches';
import { markMessageFailed } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { reserveSendSlots } from '../../db/sender-paces';
import { logMessageOutcome } from './outcome-line';

export type { ChunkMessage } from '../../db/message-batches';

/* A batch's way out, a chunk at a time: the steps its run calls, each safe to repeat. */

/** Where a run of the batch starts: how many chunks were claimed, and those a previous run left sending; null when the batch is gone. */
export async function batchProgress(prisma: Prisma, batchId: string): Promise<{ chunksClaimed: number; resume: number[] } | null> {
  const batch = await findBatch(prisma, batchId);
  if (!batch) return null;
  return { chunksClaimed: batch.chunksClaimed, resume: await chunksStillSending(prisma, batchId) };
}

/** When the batch's next scheduled message is due; null when none is left. */
export const nextDue = (prisma: Prisma, batchId: string): Promise<Date | null> => nextDueInBatch(prisma, batchId);

/** scheduled → sending for the chunk's messages due by `dueBy`. */
export const claimChunk = (prisma: Prisma, input: { batchId: string; chunk: number; limit: number; dueBy: Date; provider: string }) => claimBatchChunk(prisma, input);

/** Counts an attempt of the chunk: its messages still to hand over. */
export const startChunk = (prisma: Prisma, input: { batchId: string; chunk: number; provider: string; retry: boolean }): Promise<ChunkMessage[]> => startChunkAttempt(prisma, input);

/** When each of these hand-overs may go, in ms: its sender's slots reserved together, one after another at `perSecond`. */
export async function pacedSlots(prisma: Prisma, senders: string[], perSecond: number): Promise<number[]> {
  const counts = new Map<string, number>();
  const places = senders.map((sender) => {
    const place = counts.get(sender) ?? 0;
    counts.set(sender, place + 1);
    return place;
  });
  const firsts = new Map<string, number>();
  for (const [sender, count] of counts) firsts.set(sender, (await reserveSendSlots(prisma, { sender, count, perSecond })).getTime());
  return senders.map((sender, k) => firsts.get(sender)! + (places[k] * 1000) / perSecond);
}

/** The provider accepted these messages (written together, before anything else). */
export const recordChunkAcceptances = (prisma: Prisma, accepted: { messageId: string; providerRef: string | null }[]): Promise<void> => recordAcceptances(prisma, accepted);

/** The chunk's accepted messages become `sent` together: when each was due and when it left. */
export const markAcceptedSent = (prisma: Prisma, input: { batchId: string; chunk: number }) => markChunkSent(prisma, input);

/** Each of these messages failed (`sender`: the carrier's, for an opt-out of a message that had none); their outcome lines. */
export async function failMessages(prisma: Prisma, failures: { messageId: string; error: string; errorCode?: string; optOut?: boolean; sender?: string }[], provider: string): Promise<void> {
  const failed = [];
  for (const failure of failures) failed.push(await markMessageFailed(prisma, failure));
  for (const row of failed) if (row) logMessageOutcome(row, provider);
}

/** The chunk's retries are exhausted: what the provider accepted is sent, the rest failed. */
export async function giveUpChunk(prisma: Prisma, input: { batchId: string; chunk: number; error: string }): Promise<{ sent: number; failed: number }> {
  const sent = await markChunkSent(prisma, input);
  const failed = await failChunkRemaining(prisma, input);
  return { sent: sent.length, failed };
}

/** An operator canceled the batch's run: what is still scheduled is canceled (by `operator`). */
export const cancelBatchByOperator = (prisma: Prisma, batchId: string): Promise<number> => closeScheduledInBatch(prisma, batchId, { status: 'canceled', by: 'operator' });

export const finishBatch = (prisma: Prisma, batchId: string): Promise<void> => markBatchFinished(prisma, batchId);
