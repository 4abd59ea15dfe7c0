import { ApplicationFailure } from '@temporalio/common';
import { type Carrier, CarrierRejected, type CarrierSend, CarrierUnavailable, statusCallbackUrl } from '../../carriers';
import type { NumberCarriers } from '../../carriers/numbers';
import type { DatabaseDeps } from '../../use-cases/database';
import { providerRefTaken } from '../../use-cases/messages/sending';
import { ActivityFailureType } from '../../domain';
import type { MessageHandOff, MessageProvider } from './types';

/** Details of a ProviderRejected failure from a carrier: its code, and whether the recipient unsubscribed. */
export interface CarrierRejection {
  code: string;
  optOut: boolean;
}

/**
 * A carrier as the message activities see it. A refusal is final (`ProviderRejected`, its code in the
 * failure's details); throttling and outages are retried, after the carrier's Retry-After when it gave
 * one. What any other error says is not kept: an SDK's error may quote the carrier's body, which may
 * quote the phone and the text.
 */
/** `prisma`: where a lookup after a crash checks that the carrier id it found is no other message's (always given by the worker). */
/** `carriers`: the deployment's carrier for its shared sender, a business's own number's carrier for a message from it. */
export function createCarrierProvider(carrierOrNumbers: Carrier | NumberCarriers, publicBaseUrl: string, prisma?: DatabaseDeps['prisma']): MessageProvider {
  const carriers: NumberCarriers =
    'forSender' in carrierOrNumbers ? carrierOrNumbers : { deployment: carrierOrNumbers, forSender: async () => carrierOrNumbers, forReceived: async () => carrierOrNumbers, forNumber: async () => carrierOrNumbers };
  const carrier = carriers.deployment;
  const toSend = (message: MessageHandOff): CarrierSend => ({
    id: message.id,
    to: message.to,
    text: message.text,
    statusCallbackUrl: statusCallbackUrl(publicBaseUrl, carrier.name, message.id),
    dispatchedAt: message.dispatchedAt,
    channel: message.channel,
    media: message.media,
    ...(message.template && { template: message.template }),
    ...(message.suggestions && { suggestions: message.suggestions }),
  });

  const failureOf = (error: unknown): Error => {
    if (error instanceof CarrierRejected) {
      return ApplicationFailure.create({
        type: ActivityFailureType.ProviderRejected,
        message: `${error.message} (${carrier.name} error ${error.code})`,
        nonRetryable: true,
        details: [{ code: error.code, optOut: error.optOut } satisfies CarrierRejection],
      });
    }
    if (error instanceof CarrierUnavailable) {
      if (error.retryAfterMs !== undefined) return ApplicationFailure.create({ type: 'CarrierRetryAfter', message: error.message, nextRetryDelay: error.retryAfterMs });
      return new Error(error.message);
    }
    return new Error(`${carrier.name} unreachable: ${(error as { code?: string }).code ?? (error as Error).name ?? 'error'}`);
  };

  return {
    name: carrier.name,
    async deliver(message: MessageHandOff, sender: string | null = null) {
      try {
        const from = await carriers.forSender(message.business, sender);
        const accepted = await from.send(toSend(message));
        return { providerRef: accepted.providerRef };
      } catch (error) {
        throw failureOf(error);
      }
    },

    /** The carrier's copy of the message, unless another of our messages already holds that carrier id (then it is that one's, not ours). */
    async findSent(message: MessageHandOff, sender: string | null = null) {
      let found;
      try {
        found = await (await carriers.forSender(message.business, sender)).findSent(toSend(message));
      } catch (error) {
        throw failureOf(error);
      }
      if (!found) return null;
      if (prisma && (await providerRefTaken(prisma, { provider: carrier.name, providerRef: found.providerRef, messageId: message.id }))) return null;
      return { providerRef: found.providerRef };
    },
  };
}
