import { recordLogDelivery } from '../../db/log-deliveries';
import type { Prisma } from '../../db/prisma';
import { logEvent } from '../../logger';

/** The `log` provider's delivery (development): recorded once in `log_deliveries`, and one log line the first time. */
export async function deliverToLog(prisma: Prisma, message: { id: string; business: string; to: string; text: string }): Promise<{ providerRef: string }> {
  if (await recordLogDelivery(prisma, message)) logEvent('message.delivered', { provider: 'log', id: message.id, business: message.business, chars: message.text.length });
  return { providerRef: `log:${message.id}` };
}
