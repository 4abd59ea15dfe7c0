import type { Prisma } from '../prisma';
import { transition } from './transition';

/**
 * scheduled → canceled, by its owner through the API (or its client's erasure) or by an operator who
 * canceled its workflow in the Temporal UI; false when it had already left `scheduled`.
 */
export async function cancelScheduledMessage(prisma: Prisma, id: string, now = new Date(), by: 'api' | 'operator' | 'client_deleted' = 'api'): Promise<boolean> {
  const canceled = await transition(prisma, { id, status: 'scheduled' }, { status: 'canceled', canceledAt: now, canceledBy: by }, 'message.canceled', by);
  return canceled !== null;
}
