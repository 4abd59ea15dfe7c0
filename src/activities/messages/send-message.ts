import { ApplicationFailure } from '@temporalio/common';
import {
  cancelMessageByOperator,
  claimForSending,
  describeMessage,
  messageStatusOf,
  recordAccepted,
  recordFailed,
  recordSent,
  startDeliveryAttempt,
} from '../../use-cases/messages/sending';
import type { DatabaseDeps } from '../../use-cases/database';
import { ActivityFailureType, type MessageClaim, type MessageOutcome, type MessageStatus, type MessageStatusDetails, type SendDueResult, sendsReceipts } from '../../domain';
import { whileHeartbeating } from '../heartbeat';
import { senderAtSend } from '../../use-cases/messages/sender';
import { registrationFailure, retiredNumberFailure } from '../providers/retired-number';
import type { NumberRegistrations } from '../../use-cases/numbers/registration';
import { refusedForGood, type CarrierRejection, type MessageProvider } from '../providers';
import { handOffOf, withContentAtSend } from '../../use-cases/messages/hand-off';
import { contentAtSend, storedContent, whatsappRefusalCode } from '../../use-cases/messages/content-at-send';

export interface MessageActivityDeps extends DatabaseDeps {
  provider: MessageProvider;
  /** Seconds from `send_at` to `sent`, observed once per message that leaves. */
  observeLateness?: (seconds: number) => void;
  /** The configured carrier: its sender is whom a carrier-reported opt-out is recorded against. */
  carrier?: { sender: string };
  /** REQUIRE_BUSINESS_NUMBERS: a message whose number was retired may not fall back to the shared sender. */
  requireBusinessNumbers?: boolean;
  /** A US number's A2P registration, checked again when the message is due (REQUIRE_A2P_REGISTRATION). */
  registrations?: Pick<NumberRegistrations, 'gate' | 'afterRefusal'>;
}

function messageNotFound(messageId: string): ApplicationFailure {
  return ApplicationFailure.create({ type: ActivityFailureType.MessageNotFound, message: `Message ${messageId} not found`, nonRetryable: true });
}

export function createMessageActivities({ prisma, provider, observeLateness, carrier, requireBusinessNumbers, registrations }: MessageActivityDeps) {
  const activities = {
    async loadMessageStatus(messageId: string): Promise<MessageStatus> {
      const status = await messageStatusOf(prisma, messageId);
      if (!status) throw messageNotFound(messageId);
      return status;
    },

    /** An operator canceled the message's workflow: the message is canceled too, unless it already left. */
    cancelMessageByOperator: (messageId: string): Promise<MessageStatus | null> => cancelMessageByOperator(prisma, messageId),

    async claimMessageForSending(messageId: string): Promise<MessageClaim> {
      const claim = await claimForSending(prisma, messageId);
      if (!claim) throw messageNotFound(messageId);
      if (claim.status === 'scheduled') throw new Error(`Message ${messageId} is scheduled but could not be claimed; retrying`);
      return claim;
    },

    /**
     * Hands the message to the provider. Every attempt sends the same body and the same idempotency
     * key (the message id), so a retry after an ambiguous failure never makes a second delivery for a
     * receiver that honours the key. The provider's acceptance is recorded before the attempt reports
     * back, so a retry of an attempt whose report was lost (worker killed) does not hand it over again;
     * heartbeats let Temporal notice such a loss within seconds. A carrier cannot take our key: an attempt
     * after one that may have reached it asks it for its record of the message first (`findSent`).
     * The provider's reference stays in
     * PostgreSQL: only the provider's name goes back into workflow history.
     */
    async deliverMessage(messageId: string): Promise<{ provider: string }> {
      const attempt = await startDeliveryAttempt(prisma, messageId, provider.name);
      const { message } = attempt;
      if (!message) throw messageNotFound(messageId);
      if (attempt.state === 'accepted') return { provider: message.provider ?? provider.name };
      if (attempt.state === 'notSending') {
        throw ApplicationFailure.create({
          type: ActivityFailureType.MessageAlreadySent,
          message: `Message ${messageId} is ${message.status}, not sending`,
          nonRetryable: true,
        });
      }
      // Its client was erased while it was leaving: there is nobody to send it to any more.
      if (message.phone === null) throw ApplicationFailure.create({ type: ActivityFailureType.MessageNotFound, message: 'Not sent: its client was erased', nonRetryable: true });
      const outgoing = handOffOf(
        { id: message.id, business: message.business, client: message.client?.id ?? null, to: message.phone, name: message.name, text: message.text, dispatchedAt: message.dispatchedAt! },
        // What an earlier attempt handed over, for the lookup (its template fallback already decided by then).
        storedContent(message),
      );
      // An earlier attempt may have reached the carrier and died before recording it: ask the carrier first.
      const findSent = provider.findSent?.bind(provider);
      if (message.attempts > 1 && findSent) {
        const found = await whileHeartbeating(() => findSent(outgoing, message.sender));
        if (found) {
          await recordAccepted(prisma, { messageId, providerRef: found.providerRef });
          return { provider: provider.name };
        }
      }
      // The first attempt, which nothing reached the carrier before, re-picks a sender retired while the message waited.
      const sender = message.attempts > 1 ? message.sender : await retiredNumberFailure(() => senderAtSend({ prisma, carrier, requireBusinessNumbers }, { ...message, phone: outgoing.to, sender: message.sender }));
      // Its number may have lost its A2P approval while it waited: refused for good, never handed over.
      if (message.attempts <= 1 && registrations) await registrationFailure(() => registrations.gate()(message.business, sender));
      const content = await refusedForGood(whatsappRefusalCode, () => contentAtSend(prisma, { ...message, phone: outgoing.to, sender }));
      const { providerRef } = await whileHeartbeating(() => provider.deliver(withContentAtSend(outgoing, content), sender));
      await recordAccepted(prisma, { messageId, providerRef: providerRef ?? null });
      return { provider: provider.name };
    },

    /**
     * sending → sent; how the row stands after it: a carrier's receipt may have overtaken the run and
     * already ended it `delivered`, `undelivered` or `failed`, which is left as it is.
     */
    recordMessageSent: (input: { messageId: string; provider: string; providerRef?: string | null }): Promise<MessageOutcome> => recordSent(prisma, input, observeLateness),

    /** `rejection`: the carrier's code and whether it means the recipient unsubscribed (a ProviderRejected failure's details). */
    async recordMessageFailed(input: { messageId: string; error: string; rejection?: CarrierRejection }): Promise<void> {
      const failed = await recordFailed(prisma, { messageId: input.messageId, error: input.error, errorCode: input.rejection?.code, optOut: input.rejection?.optOut, sender: carrier?.sender }, provider.name);
      // A refusal for the sender's A2P registration (30034 and the like) has it read again at once.
      if (failed && input.rejection?.code) await registrations?.afterRefusal(failed.business, failed.sender, input.rejection.code);
    },
  };
  async function sendDue(messageId: string): Promise<SendDueResult> {
    const claim = await activities.claimMessageForSending(messageId);
    if (claim.status !== 'claimed') return { outcome: claim.status, awaitsReceipt: false };
    const delivered = await activities.deliverMessage(messageId);
    const outcome = await activities.recordMessageSent({ messageId, ...delivered });
    return { outcome, awaitsReceipt: outcome === 'sent' && sendsReceipts(delivered.provider) };
  }
  return {
    ...activities,

    /**
     * A due message from claim to `sent` in one local activity (one workflow activation instead of
     * three): claims it, hands it over as `deliverMessage` does and records it sent. Each part is safe
     * to repeat, so a retried attempt resumes where the last one stopped. Returns how the row ended when
     * it could not be claimed (canceled, or already finished), and whether a carrier will report on it.
     */
    sendDue,

    /** The row's status and why it ended so, for the run's MessageStatus and details. */
    async describeMessageStatus(messageId: string): Promise<MessageStatusDetails> {
      const details = await describeMessage(prisma, messageId);
      if (!details) throw messageNotFound(messageId);
      return details;
    },
  };
}
