import type { NumberCarriers } from '../../carriers/numbers';
import type { Config } from '../../config/index';
import { outboundNetworksOf, type OutboundNetwork } from '../../net/outbound';
import type { DatabaseDeps } from '../../use-cases/database';
import { createCarrierProvider } from './carrier';
import { createLogProvider } from './log';
import type { MessageProvider } from './types';
import { createWebhookProvider } from './webhook';

export type { MessageHandOff, MessageProvider, OutgoingMessage } from './types';
export { webhookBody } from './types';
export { refusedForGood } from './refusal';
export type { CarrierRejection } from './carrier';

/**
 * The configured provider; a carrier when one is configured (built once, by the composition root). The
 * `webhook` provider connects through `network`, the event webhooks' guard (WEBHOOK_ALLOW_PRIVATE_URLS).
 */
export function createProvider(config: Config, prisma: DatabaseDeps['prisma'], carriers: NumberCarriers | undefined, network: OutboundNetwork = outboundNetworksOf(config).webhooks): MessageProvider {
  // loadConfig has refused a carrier without PUBLIC_BASE_URL, and MESSAGE_PROVIDER=webhook without a URL.
  if (carriers) return createCarrierProvider(carriers, config.PUBLIC_BASE_URL!, prisma);
  if (config.MESSAGE_PROVIDER === 'webhook') {
    return createWebhookProvider({ url: config.MESSAGE_WEBHOOK_URL!, secret: config.MESSAGE_WEBHOOK_SECRET, network });
  }
  return createLogProvider(prisma);
}
