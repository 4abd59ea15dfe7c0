import type { Prisma } from './prisma';

/* Every change of `log_deliveries`, the `log` provider's record of what it delivered. */

/** Records the message's delivery once per message; false when it was recorded already. */
export async function recordLogDelivery(prisma: Prisma, message: { id: string; to: string; text: string }): Promise<boolean> {
  const recorded = await prisma.logDelivery.createMany({
    data: [{ messageId: message.id, to: message.to, text: message.text }],
    skipDuplicates: true,
  });
  return recorded.count > 0;
}
