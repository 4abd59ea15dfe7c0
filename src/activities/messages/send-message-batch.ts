import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  batchProgress,
  cancelBatchByOperator,
  claimChunk,
  failMessages,
  finishBatch,
  giveUpChunk,
  markAcceptedSent,
  nextDue,
  pacedSlots,
  recordChunkAcceptances,
  startChunk,
  type ChunkMessage,
} from '../../use-cases/messages/batch-sending';
import type { DatabaseDeps } from '../../use-cases/database';
import { ActivityFailureType, DEFAULT_BATCH_CHUNK_SIZE, DEFAULT_BATCH_CONCURRENCY } from '../../domain';
import { whileHeartbeating } from '../heartbeat';
import { retiredCheck, senderAtSend } from '../../use-cases/messages/sender';
import { registrationFailure, retiredNumberFailure } from '../providers/retired-number';
import type { NumberRegistrations } from '../../use-cases/numbers/registration';
import { refusedForGood, type MessageHandOff, type MessageProvider } from '../providers';
import { handOffOf, withContentAtSend } from '../../use-cases/messages/hand-off';
import { contentAtSend, storedContent, whatsappRefusalCode } from '../../use-cases/messages/content-at-send';

/** How a batch is sent: messages per chunk, chunks at once, and the pace per sender (undefined: unlimited). */
export interface CampaignSettings {
  chunkSize: number;
  concurrency: number;
  ratePerSecond?: number;
}

export const DEFAULT_CAMPAIGN_SETTINGS: CampaignSettings = { chunkSize: DEFAULT_BATCH_CHUNK_SIZE, concurrency: DEFAULT_BATCH_CONCURRENCY };

export interface MessageBatchActivityDeps extends DatabaseDeps {
  provider: MessageProvider;
  campaigns?: CampaignSettings;
  observeLateness?: (seconds: number) => void;
  carrier?: { sender: string };
  /** REQUIRE_BUSINESS_NUMBERS: a message whose number was retired may not fall back to the shared sender. */
  requireBusinessNumbers?: boolean;
  /** A US number's A2P registration, checked again when the chunk is due, once per sender (REQUIRE_A2P_REGISTRATION). */
  registrations?: Pick<NumberRegistrations, 'gate' | 'afterRefusal'>;
}

/** Messages of one chunk handed to the provider at once (each waits for its paced slot first). */
const HAND_OVERS_IN_FLIGHT = 16;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eachWithin<T>(items: T[], inFlight: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, items.length) }, lane));
}

/**
 * Calls to `write` made in the same turn of the event loop become one call with all their items; each
 * caller's promise settles with that call.
 */
function coalesced<T>(write: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  let waiting: { item: T; settle: (error?: unknown) => void }[] = [];
  const flush = async () => {
    const batch = waiting;
    waiting = [];
    try {
      await write(batch.map((w) => w.item));
      for (const w of batch) w.settle();
    } catch (error) {
      for (const w of batch) w.settle(error);
    }
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
}

/** A refusal no retry heals, with the carrier's code when it gave one. */
function rejectionOf(error: unknown): { code?: string; optOut?: boolean } | undefined {
  if (!(error instanceof ApplicationFailure) || error.type !== ActivityFailureType.ProviderRejected) return undefined;
  const detail = error.details?.[0] as { code?: unknown; optOut?: unknown } | undefined;
  return { ...(typeof detail?.code === 'string' && { code: detail.code }), optOut: detail?.optOut === true };
}

function outgoing(message: ChunkMessage & { phone: string }): MessageHandOff {
  const { id, business, clientId: client, phone: to, name, text, dispatchedAt } = message;
  return handOffOf({ id, business, client, to, name, text, dispatchedAt }, storedContent(message));
}

export function createMessageBatchActivities({ prisma, provider, campaigns = DEFAULT_CAMPAIGN_SETTINGS, observeLateness, carrier, requireBusinessNumbers, registrations }: MessageBatchActivityDeps) {
  return {
    /** Where a run of the batch starts: the settings it keeps for its life, and chunks a previous run left sending. */
    async planMessageBatch(batchId: string): Promise<{ chunkSize: number; concurrency: number; nextChunk: number; resume: number[] } | null> {
      const progress = await batchProgress(prisma, batchId);
      if (!progress) return null;
      return { chunkSize: campaigns.chunkSize, concurrency: campaigns.concurrency, nextChunk: progress.chunksClaimed, resume: progress.resume };
    },

    /** When the batch's next scheduled message is due, ISO 8601; null when none is left. */
    async nextDueInBatch(batchId: string): Promise<string | null> {
      return (await nextDue(prisma, batchId))?.toISOString() ?? null;
    },

    /** `dueBy`: the run's time, ISO 8601. */
    claimBatchChunk(input: { batchId: string; chunk: number; limit: number; dueBy: string }) {
      return claimChunk(prisma, { ...input, dueBy: new Date(input.dueBy), provider: provider.name });
    },

    /**
     * Hands the chunk's messages to the provider, several at once, each at its paced slot when a rate is
     * set, and records each acceptance before anything else: a retry (a worker killed, a provider that
     * failed some) hands over only those never accepted, asking a carrier first (`findSent`) about any an
     * earlier attempt may have reached. Then the accepted ones become `sent` together. A refusal ends that
     * message `failed`; other failures leave it for the retry, which this attempt asks for by failing.
     */
    async sendBatchChunk(input: { batchId: string; chunk: number; fresh?: boolean }): Promise<{ sent: number; failed: number }> {
      // The claim counted the first attempt of a chunk this run just claimed (`fresh`); any other attempt counts its own.
      const retry = !input.fresh || Context.current().info.attempt > 1;
      const started = await startChunk(prisma, { batchId: input.batchId, chunk: input.chunk, provider: provider.name, retry });
      // A first hand-over, which nothing reached the carrier before, re-picks a sender retired while the message waited (before its pace is reserved).
      const retired = retiredCheck(prisma);
      const registered = registrations?.gate();
      const rejected: { row: ChunkMessage; error: Error; rejection: NonNullable<ReturnType<typeof rejectionOf>> }[] = [];
      const rows: (ChunkMessage & { phone: string })[] = [];
      const erased: ChunkMessage[] = [];
      for (const row of started) {
        // Its client was erased while the chunk was leaving: nobody to send it to any more.
        if (row.phone === null) {
          erased.push(row);
          continue;
        }
        try {
          const phone = row.phone;
          if (row.attempts > 0) {
            rows.push({ ...row, phone });
            continue;
          }
          const sender = await retiredNumberFailure(() => senderAtSend({ prisma, carrier, requireBusinessNumbers }, { ...row, phone }, retired));
          if (registered) await registrationFailure(() => registered(row.business, sender));
          rows.push({ ...row, phone, sender });
        } catch (error) {
          const rejection = rejectionOf(error);
          if (!rejection) throw error;
          rejected.push({ row, error: error as Error, rejection });
        }
      }
      const rate = campaigns.ratePerSecond;
      // Each sender (a business's number, or the shared sender) keeps its own pace: a row's slot is its sender's first plus its place among that sender's rows.
      const slots = rate ? await pacedSlots(prisma, rows.map((row) => row.sender ?? provider.name), rate) : undefined;
      // Acceptances that arrive together are written by one statement; each hand-over waits for its own.
      const recordAcceptance = coalesced((accepted: { messageId: string; providerRef: string | null }[]) => recordChunkAcceptances(prisma, accepted));
      const transient: unknown[] = [];
      await whileHeartbeating(() =>
        eachWithin(rows, HAND_OVERS_IN_FLIGHT, async (row, k) => {
          if (slots !== undefined) {
            const wait = slots[k] - Date.now();
            if (wait > 0) await sleep(wait);
          }
          const message = outgoing(row);
          try {
            const found = row.attempts > 0 && provider.findSent ? await provider.findSent(message, row.sender) : null;
            const content = found ? null : await refusedForGood(whatsappRefusalCode, () => contentAtSend(prisma, row));
            const accepted = found ?? (await provider.deliver(content ? withContentAtSend(message, content) : message, row.sender));
            await recordAcceptance({ messageId: row.id, providerRef: accepted.providerRef ?? null });
          } catch (error) {
            const rejection = rejectionOf(error);
            if (rejection) rejected.push({ row, error: error as Error, rejection });
            else transient.push(error);
          }
        }),
      );
      const sent = await markAcceptedSent(prisma, { batchId: input.batchId, chunk: input.chunk });
      for (const { sendAt, sentAt } of sent) observeLateness?.((sentAt.getTime() - sendAt.getTime()) / 1000);
      await failMessages(
        prisma,
        [
          ...erased.map((row) => ({ messageId: row.id, error: 'Not sent: its client was erased' })),
          ...rejected.map(({ row, error, rejection }) => ({ messageId: row.id, error: error.message, errorCode: rejection.code, optOut: rejection.optOut, sender: carrier?.sender })),
        ],
        provider.name,
      );
      // A refusal for a sender's A2P registration (30034 and the like) has it read again, once per sender and code.
      const refusedSenders = new Map(rejected.map(({ row, rejection }) => [`${row.business}\n${row.sender}\n${rejection.code}`, { business: row.business, sender: row.sender, code: rejection.code }]));
      for (const refusal of refusedSenders.values()) await registrations?.afterRefusal(refusal.business, refusal.sender, refusal.code);
      if (transient.length > 0) {
        throw new Error(`${transient.length} of ${rows.length} messages of chunk ${input.chunk} not handed over yet: ${(transient[0] as Error)?.message ?? transient[0]}`);
      }
      return { sent: sent.length, failed: rejected.length + erased.length };
    },

    /** The chunk's retries are exhausted: what the provider accepted is sent, the rest failed. */
    giveUpBatchChunk: (input: { batchId: string; chunk: number; error: string }): Promise<{ sent: number; failed: number }> => giveUpChunk(prisma, input),

    /** An operator canceled the batch's run: what is still scheduled is canceled (by `operator`). */
    cancelBatchByOperator: (batchId: string): Promise<number> => cancelBatchByOperator(prisma, batchId),

    markBatchFinished: (batchId: string): Promise<void> => finishBatch(prisma, batchId),
  };
}
