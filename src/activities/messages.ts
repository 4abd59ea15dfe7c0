import { ApplicationFailure } from '@temporalio/common';
import {
  claimMessageForSending,
  countDeliveryAttempt,
  markMessageFailed,
  markMessageSent,
  messageStatus,
} from '../db/messages';
import type { Prisma } from '../db/prisma';
import { ActivityFailureType, type MessageClaim, type MessageStatus } from '../workflows/definitions';
import type { MessageProvider, OutgoingMessage } from './providers';

export interface MessageActivityDeps {
  prisma: Prisma;
  provider: MessageProvider;
  /** Seconds from `send_at` to `sent`, observed once per message that leaves. */
  observeLateness?: (seconds: number) => void;
}

function messageNotFound(messageId: string): ApplicationFailure {
  return ApplicationFailure.create({ type: ActivityFailureType.MessageNotFound, message: `Message ${messageId} not found`, nonRetryable: true });
}

export function createMessageActivities({ prisma, provider, observeLateness }: MessageActivityDeps) {
  return {
    async loadMessageStatus(messageId: string): Promise<MessageStatus> {
      const status = await messageStatus(prisma, messageId);
      if (!status) throw messageNotFound(messageId);
      return status;
    },

    async claimMessageForSending(messageId: string): Promise<MessageClaim> {
      const claim = await claimMessageForSending(prisma, messageId);
      if (!claim) throw messageNotFound(messageId);
      if (claim.status === 'scheduled') throw new Error(`Message ${messageId} is scheduled but could not be claimed; retrying`);
      return claim;
    },

    /**
     * Hands the message to the provider. Every attempt sends the same body and the same idempotency
     * key (the message id), so a retry after an ambiguous failure never makes a second delivery.
     */
    async deliverMessage(messageId: string): Promise<{ provider: string; providerRef: string | null }> {
      const { message, sending } = await countDeliveryAttempt(prisma, messageId, provider.name);
      if (!message) throw messageNotFound(messageId);
      if (!sending) {
        throw ApplicationFailure.create({
          type: ActivityFailureType.MessageAlreadySent,
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
        sent_at: message.dispatchedAt!.toISOString(),
      };
      const { providerRef } = await provider.deliver(outgoing);
      return { provider: provider.name, providerRef: providerRef ?? null };
    },

    async recordMessageSent(input: { messageId: string; provider: string; providerRef: string | null }): Promise<void> {
      const sent = await markMessageSent(prisma, input);
      if (sent) observeLateness?.((sent.sentAt.getTime() - sent.sendAt.getTime()) / 1000);
    },

    recordMessageFailed: (input: { messageId: string; error: string }): Promise<void> => markMessageFailed(prisma, input),
  };
}
