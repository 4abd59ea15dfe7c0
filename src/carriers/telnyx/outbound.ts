import type { MessageWhatsappParams, WhatsappMessageContent } from 'telnyx/resources/messages/messages';
import type { CarrierSend } from '../types';
import { CarrierRejected } from '../types';
import { httpsMediaUrl } from '../media-url';

/*
 * What one message is for Telnyx:
 * - SMS: `POST /v2/messages` `{ to, from | messaging_profile_id, text }`.
 * - MMS (SMS with media): the same with `media_urls` (up to 10 public URLs, which Telnyx fetches at send
 *   time); `text` only when there is one.
 * - WhatsApp: `POST /v2/messages/whatsapp` `{ from, to, whatsapp_message }` (the SDK's
 *   `messages.whatsapp`): `{ type: "text", text: { body } }`; one file as `image` / `video` / `audio` /
 *   `document` `{ link, caption?, filename? }` (chosen from the URL's extension); an approved template as
 *   `{ type: "template", template: { name, language: { policy: "deterministic", code }, components:
 *   [{ type: "body", parameters: [{ type: "text", text }] }] } }`, the values in the template's order.
 *   WhatsApp goes from a WhatsApp-enabled number: TELNYX_FROM, not a messaging profile.
 */

/** Telnyx's limit of files on one MMS. */
export const TELNYX_MMS_MAX_MEDIA = 10;

const WHATSAPP_KINDS: Partial<Record<string, 'image' | 'video' | 'audio'>> = {
  jpg: 'image',
  jpeg: 'image',
  png: 'image',
  mp4: 'video',
  '3gp': 'video',
  aac: 'audio',
  amr: 'audio',
  mp3: 'audio',
  m4a: 'audio',
  ogg: 'audio',
  opus: 'audio',
};

/** The `media_urls` of an MMS (checked: https, at most ten). */
export function telnyxMediaUrls(media: string[]): string[] {
  if (media.length > TELNYX_MMS_MAX_MEDIA) throw new CarrierRejected('mms-media-count', `An MMS carries at most ${TELNYX_MMS_MAX_MEDIA} files`);
  return media.map((raw) => httpsMediaUrl(raw).href);
}

/** The file's name, from the URL's last segment, for a WhatsApp document. */
function fileNameOf(url: URL): string | undefined {
  let name: string | undefined;
  try {
    name = decodeURIComponent(url.pathname.split('/').pop() ?? '');
  } catch {
    name = undefined;
  }
  return name && /^[^\\/\0]{1,100}\.[A-Za-z0-9]{1,5}$/.test(name) ? name : undefined;
}

function whatsappMedia(raw: string, text: string): WhatsappMessageContent {
  const url = httpsMediaUrl(raw);
  const kind = WHATSAPP_KINDS[/\.([a-z0-9]{1,5})$/i.exec(url.pathname)?.[1]?.toLowerCase() ?? ''] ?? 'document';
  // WhatsApp shows no caption under a voice note: its text would be lost.
  if (kind === 'audio' && text) throw new CarrierRejected('whatsapp-audio-caption', 'A WhatsApp audio file carries no text: send the text as its own message');
  const name = kind === 'document' ? fileNameOf(url) : undefined;
  return { type: kind, [kind]: { link: url.href, ...(kind !== 'audio' && text ? { caption: text } : {}), ...(name ? { filename: name } : {}) } };
}

/** The `whatsapp_message` of a WhatsApp message. */
export function telnyxWhatsappMessage(message: Pick<CarrierSend, 'text' | 'media' | 'template'>): WhatsappMessageContent {
  const { template, media, text } = message;
  if (template) {
    if (!('name' in template.ref)) throw new CarrierRejected('template-ref', 'The template is not registered by name and language, as Telnyx needs it');
    const parameters = template.variables.map((variable) => ({ type: 'text' as const, text: variable.value }));
    return {
      type: 'template',
      template: { name: template.ref.name, language: { policy: 'deterministic', code: template.ref.language }, ...(parameters.length > 0 ? { components: [{ type: 'body', parameters }] } : {}) },
    };
  }
  if (media.length > 1) throw new CarrierRejected('whatsapp-media-count', 'A WhatsApp message carries one file');
  if (media.length === 1) return whatsappMedia(media[0]!, text);
  return { type: 'text', text: { body: text } };
}

/** The WhatsApp request, from our number (a messaging profile cannot send WhatsApp). */
export function telnyxWhatsappParams(message: Pick<CarrierSend, 'to' | 'text' | 'media' | 'template'>, from: string | undefined, webhookUrl?: string): MessageWhatsappParams {
  if (!from) throw new CarrierRejected('whatsapp-sender', 'WhatsApp is sent from a WhatsApp-enabled number (TELNYX_FROM or the business number), not a messaging profile');
  return { from, to: message.to, type: 'WHATSAPP', whatsapp_message: telnyxWhatsappMessage(message), ...(webhookUrl ? { webhook_url: webhookUrl } : {}) };
}
