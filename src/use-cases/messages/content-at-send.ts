import { insideWhatsAppWindow, OUTSIDE_WHATSAPP_WINDOW, storedChannel, type Channel } from '../../domain/channels';
import { lastWhatsAppInboundAt, replaceTextWithTemplate, type StoredTemplate } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { Conflict } from '../errors';
import { hasConsent } from '../../db/client-consents';

export const NO_WHATSAPP_CONSENT = 'Not sent: the client withdrew its WhatsApp consent';

/** The error code a refusal when due is recorded with. */
export const whatsappRefusalCode = (refusal: Conflict): string => (refusal.message === NO_WHATSAPP_CONSENT ? 'whatsapp-consent' : 'whatsapp-window');

/** What goes to the carrier besides the text: the channel, the media, and the template when it goes instead of free text. */
export interface SendContent {
  channel: Channel;
  media: string[];
  template?: { ref: StoredTemplate['ref']; variables: StoredTemplate['variables'] };
  /** RCS's suggested replies, as stored (each with its postback data). */
  suggestions?: { text: string; postbackData: string }[];
}

export interface DueMessage {
  id: string;
  business: string;
  ownerId: string;
  clientPk: string | null;
  phone: string;
  sender: string | null;
  channel: string;
  media: unknown;
  template: unknown;
  /** RCS's suggested replies as stored; absent on rows read before RCS. */
  suggestions?: unknown;
}

/** The content as stored, without asking the window: what a lookup after a crash compares with. */
export function storedContent(message: Pick<DueMessage, 'channel' | 'media' | 'template' | 'suggestions'>): SendContent {
  const media = Array.isArray(message.media) ? (message.media as { url: string }[]).map((m) => m.url) : [];
  const template = message.template as StoredTemplate | null;
  const channel = storedChannel(message.channel);
  if (channel === 'sms') return { channel: 'sms', media };
  if (channel === 'rcs') {
    const suggestions = Array.isArray(message.suggestions) ? (message.suggestions as { text: string; postback_data: string }[]).map((s) => ({ text: s.text, postbackData: s.postback_data })) : [];
    return { channel: 'rcs', media, ...(suggestions.length > 0 && { suggestions }) };
  }
  return { channel: 'whatsapp', media, ...(template && !template.fallback && { template: { ref: template.ref, variables: template.variables } }) };
}

/** A template starts a conversation: only while the client's WhatsApp consent stands (it may have been withdrawn since accept). */
async function consented(prisma: Prisma, message: DueMessage): Promise<void> {
  if (message.clientPk === null || !(await hasConsent(prisma, message.clientPk, 'whatsapp'))) throw new Conflict(NO_WHATSAPP_CONSENT);
}

/**
 * WhatsApp's rules when the message is due: a template goes as it is, while the client's consent
 * stands; free text only inside the 24-hour window of the client's last WhatsApp message to the sender,
 * else the template the message names as its fallback (its text then becomes the template's), else a
 * Conflict: never sent.
 */
export async function contentAtSend(prisma: Prisma, message: DueMessage, now = new Date()): Promise<SendContent> {
  const stored = storedContent(message);
  const template = message.template as StoredTemplate | null;
  if (stored.channel !== 'whatsapp') return stored;
  if (stored.template) {
    await consented(prisma, message);
    return stored;
  }
  const { media } = stored;
  const asTemplate = template ? { ref: template.ref, variables: template.variables } : undefined;
  const last = message.sender === null ? null : await lastWhatsAppInboundAt(prisma, { business: message.business, ownerId: message.ownerId, phone: message.phone, sender: message.sender });
  if (insideWhatsAppWindow(last, now)) return { channel: 'whatsapp', media };
  if (!template) throw new Conflict(OUTSIDE_WHATSAPP_WINDOW);
  await consented(prisma, message);
  await replaceTextWithTemplate(prisma, message.id, template.text ?? '');
  return { channel: 'whatsapp', media: [], template: asTemplate };
}
