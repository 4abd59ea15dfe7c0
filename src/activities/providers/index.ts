import { createLogProvider } from './log';
import { createWebhookProvider } from './webhook';
import type { Config } from '../../config';
import type { Prisma } from '../../db/prisma';

/** What a provider is handed: the contract's webhook body. */
export interface OutgoingMessage {
  id: string;
  business: string;
  client: string | null;
  to: string;
  name: string | null;
  text: string;
  sent_at: string;
}

export interface MessageProvider {
  readonly name: string;
  /** Delivers once per message id: a repeated call with the same id must not deliver twice. */
  deliver(message: OutgoingMessage): Promise<{ providerRef?: string }>;
}

export function createProvider(config: Config, prisma: Prisma): MessageProvider {
  switch (config.MESSAGE_PROVIDER) {
    case 'log':
      return createLogProvider(prisma);
    case 'webhook':
      if (!config.MESSAGE_WEBHOOK_URL) throw new Error('Invalid configuration: MESSAGE_PROVIDER=webhook needs MESSAGE_WEBHOOK_URL');
      return createWebhookProvider({ url: config.MESSAGE_WEBHOOK_URL, secret: config.MESSAGE_WEBHOOK_SECRET });
  }
}
