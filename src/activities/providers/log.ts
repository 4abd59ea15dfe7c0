import type { Prisma } from '../../db/prisma';
import { logEvent } from '../../logger';
import type { MessageProvider } from './types';

/** Development provider: records each message once in `log_deliveries` and in the log. */
export function createLogProvider(prisma: Prisma): MessageProvider {
  return {
    name: 'log',
    async deliver(message) {
      const recorded = await prisma.logDelivery.createMany({
        data: [{ messageId: message.id, to: message.to, text: message.text }],
        skipDuplicates: true,
      });
      if (recorded.count > 0) logEvent('message.delivered', { provider: 'log', id: message.id, business: message.business, chars: message.text.length });
      return { providerRef: `log:${message.id}` };
    },
  };
}
