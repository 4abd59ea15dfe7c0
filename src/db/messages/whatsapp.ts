import type { Prisma } from '../prisma';

/**
 * When the client at `phone` last wrote to the owner on WhatsApp through `sender`: what WhatsApp's
 * 24-hour window runs from. Only the owner's own inbound messages count, so one user's or business's
 * conversation never opens another's window (stricter than WhatsApp, which keys it by number alone).
 */
export async function lastWhatsAppInboundAt(prisma: Prisma, where: { business: string; ownerId: string; phone: string; sender: string }): Promise<Date | null> {
  const row = await prisma.message.findFirst({
    where: { ...where, direction: 'inbound', channel: 'whatsapp' },
    orderBy: { createdAt: 'desc' },
    select: { receivedAt: true },
  });
  return row?.receivedAt ?? null;
}

/** A WhatsApp message whose template went instead of its free text shows the template's text. */
export async function replaceTextWithTemplate(prisma: Prisma, id: string, text: string): Promise<void> {
  await prisma.message.updateMany({ where: { id, status: 'sending' }, data: { text } });
}
