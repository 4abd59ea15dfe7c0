import { ApplicationFailure } from '@temporalio/common';
import type { MessageProvider, OutgoingMessage } from './providers';
import type { Prisma } from '../db/prisma';
import { FailureType, type MessageClaim, type MessageStatus } from '../workflows/definitions';

export interface MessageActivityDeps {
  prisma: Prisma;
  provider: MessageProvider;
}

function messageNotFound(messageId: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.MessageNotFound, message: `Message ${messageId} not found`, nonRetryable: true });
}

export function createMessageActivities({ prisma, provider }: MessageActivityDeps) {
  async function statusOf(messageId: string): Promise<MessageStatus> {
    const message = await prisma.message.findUnique({ where: { id: messageId }, select: { status: true } });
    if (!message) throw messageNotFound(messageId);
    return message.status;
  }

  return {
    loadMessageStatus: statusOf,

    /**
     * Moves the message `scheduled → sending` and fixes its `dispatched_at`, only if it is still
     * scheduled: a cancel that won the race leaves it canceled. A retry after a lost completion finds
     * it `sending` and claims it again, since only this message's one workflow ever claims it.
     */
    async claimMessageForSending(messageId: string): Promise<MessageClaim> {
      const claimed = await prisma.message.updateMany({
        where: { id: messageId, status: 'scheduled' },
        data: { status: 'sending', dispatchedAt: new Date() },
      });
      if (claimed.count > 0) return { status: 'claimed' };
      const status = await statusOf(messageId);
      if (status === 'sending') return { status: 'claimed' };
      if (status === 'scheduled') throw new Error(`Message ${messageId} is scheduled but could not be claimed; retrying`);
      return { status };
    },

    /**
     * Hands the message to the provider. Every attempt sends the same body and the same idempotency
     * key (the message id), so a retry after an ambiguous failure never makes a second delivery.
     */
    async deliverMessage(messageId: string): Promise<{ provider: string; providerRef: string | null }> {
      const counted = await prisma.message.updateMany({
        where: { id: messageId, status: 'sending' },
        data: { attempts: { increment: 1 }, provider: provider.name },
      });
      const message = await prisma.message.findUnique({ where: { id: messageId }, include: { client: { select: { id: true } } } });
      if (!message) throw messageNotFound(messageId);
      if (counted.count === 0 || !message.dispatchedAt) {
        throw ApplicationFailure.create({
          type: FailureType.MessageAlreadySent,
          message: `Message ${messageId} is ${message.status}, not sending`,
          nonRetryable: true,
        });
      }
      const outgoing: OutgoingMessage = {
        id: message.id,
        business: message.business,
        client: message.client?.id ?? null,
        to: message.phone,
        name: message.name,
        text: message.text,
        sent_at: message.dispatchedAt.toISOString(),
      };
      const { providerRef } = await provider.deliver(outgoing);
      return { provider: provider.name, providerRef: providerRef ?? null };
    },

    async recordMessageSent(input: { messageId: string; provider: string; providerRef: string | null }): Promise<void> {
      await prisma.message.updateMany({
        where: { id: input.messageId, status: 'sending' },
        data: { status: 'sent', sentAt: new Date(), provider: input.provider, providerRef: input.providerRef, error: null },
      });
    },

    async recordMessageFailed(input: { messageId: string; error: string }): Promise<void> {
      await prisma.message.updateMany({
        where: { id: input.messageId, status: 'sending' },
        data: { status: 'failed', error: input.error.slice(0, 1000) },
      });
    },
  };
}
