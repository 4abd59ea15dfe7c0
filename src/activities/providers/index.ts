import type { Config } from '../../config';
import type { Prisma } from '../../db/prisma';
import { createLogProvider } from './log';
import type { MessageProvider } from './types';
import { createWebhookProvider } from './webhook';

export type { MessageProvider, OutgoingMessage } from './types';

export function createProvider(config: Config, prisma: Prisma): MessageProvider {
  switch (config.MESSAGE_PROVIDER) {
    case 'log':
      return createLogProvider(prisma);
    case 'webhook':
      // loadConfig has refused MESSAGE_PROVIDER=webhook without a URL.
      return createWebhookProvider({ url: config.MESSAGE_WEBHOOK_URL!, secret: config.MESSAGE_WEBHOOK_SECRET });
  }
}
