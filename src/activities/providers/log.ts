import type { DatabaseDeps } from '../../use-cases/database';
import { deliverToLog } from '../../use-cases/messages/log-delivery';
import type { MessageProvider } from './types';

/** Development provider: records each message once in `log_deliveries` and in the log. */
export function createLogProvider(prisma: DatabaseDeps['prisma']): MessageProvider {
  return {
    name: 'log',
    deliver: (message) => deliverToLog(prisma, message),
  };
}
