import { ApplicationFailure } from '@temporalio/common';
import { type Carrier, CarrierRejected, CarrierUnavailable, statusCallbackUrl } from '../../carriers';
import { ActivityFailureType } from '../../domain';
import type { MessageProvider, OutgoingMessage } from './types';

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
export function createCarrierProvider(carrier: Carrier, publicBaseUrl: string): MessageProvider {
  return {
    name: carrier.name,
    async deliver(message: OutgoingMessage) {
      try {
        const accepted = await carrier.send({
          id: message.id,
          to: message.to,
          text: message.text,
          statusCallbackUrl: statusCallbackUrl(publicBaseUrl, carrier.name, message.id),
          dispatchedAt: new Date(message.sent_at),
        });
        return { providerRef: accepted.providerRef };
      } catch (error) {
        if (error instanceof CarrierRejected) {
          throw ApplicationFailure.create({
            type: ActivityFailureType.ProviderRejected,
            message: `${error.message} (${carrier.name} error ${error.code})`,
            nonRetryable: true,
            details: [{ code: error.code, optOut: error.optOut } satisfies CarrierRejection],
          });
        }
        if (error instanceof CarrierUnavailable) {
          if (error.retryAfterMs !== undefined) throw ApplicationFailure.create({ type: 'CarrierRetryAfter', message: error.message, nextRetryDelay: error.retryAfterMs });
          throw new Error(error.message);
        }
        throw new Error(`${carrier.name} unreachable: ${(error as { code?: string }).code ?? (error as Error).name ?? 'error'}`);
      }
    },
  };
}
