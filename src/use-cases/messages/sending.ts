import {
  cancelScheduledMessage,
  claimMessageForSending,
  countDeliveryAttempt,
  findMessage,
  markMessageFailed,
  markMessageSent,
  messageStatus,
  providerRefHeldByAnother,
  recordProviderAccepted,
} from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import type { MessageOutcome, MessageStatus, MessageStatusDetails } from '../../domain';
import { messageReason } from '../../views/message-reason';
import { logMessageOutcome } from './outcome-line';

/*
 * A message's way out, one step per call of its run: each a compare-and-set on the status it leaves, so
 * a retried step finds what the last attempt did.
 */

export const messageStatusOf = (prisma: Prisma, messageId: string): Promise<MessageStatus | null> => messageStatus(prisma, messageId);

/** An operator canceled the message's workflow: the message is canceled too, unless it already left; how it stands after. */
export async function cancelMessageByOperator(prisma: Prisma, messageId: string): Promise<MessageStatus | null> {
  await cancelScheduledMessage(prisma, messageId, new Date(), 'operator');
  return messageStatus(prisma, messageId);
}

/** scheduled → sending, when it is due and still scheduled. */
export const claimForSending = (prisma: Prisma, messageId: string) => claimMessageForSending(prisma, messageId);

/** Counts one hand-over attempt to `provider`: the message to hand over, or why there is none. */
export const startDeliveryAttempt = (prisma: Prisma, messageId: string, provider: string) => countDeliveryAttempt(prisma, messageId, provider);

/** The provider accepted the message (before the attempt reports back): a later attempt skips the hand-over. */
export const recordAccepted = (prisma: Prisma, input: { messageId: string; providerRef: string | null }): Promise<void> => recordProviderAccepted(prisma, input);

/** Whether another of our messages already holds this carrier message id (a lookup after a crash must not take it). */
export const providerRefTaken = (prisma: Prisma, input: { provider: string; providerRef: string; messageId: string }): Promise<boolean> => providerRefHeldByAnother(prisma, input);

/**
 * sending → sent (`observeLateness`: seconds from `send_at`); how the row stands after it: a carrier's
 * receipt may have overtaken the run and already ended it `delivered`, `undelivered` or `failed`, which is left as it is.
 */
export async function recordSent(prisma: Prisma, input: { messageId: string; provider: string; providerRef?: string | null }, observeLateness?: (seconds: number) => void): Promise<MessageOutcome> {
  const sent = await markMessageSent(prisma, input);
  if (sent) {
    observeLateness?.((sent.sentAt.getTime() - sent.sendAt.getTime()) / 1000);
    return 'sent';
  }
  const status = await messageStatus(prisma, input.messageId);
  return status === 'delivered' || status === 'read' || status === 'undelivered' || status === 'failed' ? status : 'sent';
}

/** sending → failed, with the carrier's code and whether the recipient unsubscribed (recorded against `sender`); its outcome line. The message's business and sender when it failed now. */
export async function recordFailed(prisma: Prisma, input: { messageId: string; error: string; errorCode?: string; optOut?: boolean; sender?: string }, provider: string): Promise<{ business: string; sender: string | null } | null> {
  const failed = await markMessageFailed(prisma, input);
  if (failed) logMessageOutcome(failed, provider);
  return failed ? { business: failed.business, sender: failed.sender } : null;
}

/** The row's status and why it ended so; null when there is no such message. */
export async function describeMessage(prisma: Prisma, messageId: string): Promise<MessageStatusDetails | null> {
  const message = await findMessage(prisma, messageId);
  if (!message) return null;
  return { status: message.status, reason: messageReason(message), code: message.errorCode };
}
