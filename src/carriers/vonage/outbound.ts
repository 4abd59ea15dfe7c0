import type { CarrierSend } from '../types';
import { CarrierRejected } from '../types';
import { httpsMediaUrl } from '../media-url';

/*
 * What one message is for Vonage's Messages API (`POST /v1/messages`), in the SDK's camelCase (it sends
 * snake_case):
 * - SMS: `channel: "sms"`, `message_type: "text"`.
 * - MMS (SMS with media): `channel: "mms"`; one file as `image` / `video` / `audio` / `vcard` / `file`
 *   (chosen from the URL's extension) with the text as its `caption`; several as `message_type: "content"`,
 *   Vonage's MMS type for several attachments, the text as the first one's caption.
 * - WhatsApp: `channel: "whatsapp"`; free text as `text`; one file as `image` / `video` / `audio` / `file`
 *   with the text as its caption; an approved template as `message_type: "template"` with
 *   `template: { name, parameters: [values in the template's order] }` and
 *   `whatsapp: { policy: "deterministic", locale }`.
 * Numbers are E.164 without the `+`.
 */

export type VonageOutbound = Record<string, unknown> & { channel: 'sms' | 'mms' | 'whatsapp' | 'rcs'; messageType: string; to: string; from: string };

/** The Messages API wants numbers as E.164 without the `+`. */
export const vonageNumber = (number: string) => number.replace(/^\+/, '');

const extensionOf = (url: URL) => /\.([a-z0-9]{1,5})$/i.exec(url.pathname)?.[1]?.toLowerCase() ?? '';

/** The file types each channel shows as such (WhatsApp's and Vonage's MMS lists); anything else goes as a `file`. */
const KINDS: Record<'mms' | 'whatsapp', Partial<Record<string, string>>> = {
  mms: { jpg: 'image', jpeg: 'image', png: 'image', gif: 'image', mp4: 'video', mp3: 'audio', vcf: 'vcard' },
  whatsapp: { jpg: 'image', jpeg: 'image', png: 'image', mp4: 'video', '3gp': 'video', aac: 'audio', amr: 'audio', mp3: 'audio', m4a: 'audio', ogg: 'audio', opus: 'audio' },
};

/** The message type Vonage shows a file as on `channel`, from its URL's extension. */
export function vonageMediaKind(channel: 'mms' | 'whatsapp', url: string): string {
  return KINDS[channel][extensionOf(httpsMediaUrl(url))] ?? 'file';
}

const withCaption = (url: string, text: string) => ({ url, ...(text ? { caption: text } : {}) });

function whatsapp(message: Pick<CarrierSend, 'text' | 'media' | 'template'>): Record<string, unknown> {
  const { template, media, text } = message;
  if (template) {
    if (!('name' in template.ref)) throw new CarrierRejected('template-ref', 'The template is not registered by name and language, as Vonage needs it');
    return {
      messageType: 'template',
      template: { name: template.ref.name, parameters: template.variables.map((variable) => variable.value) },
      whatsapp: { policy: 'deterministic', locale: template.ref.language },
    };
  }
  if (media.length > 1) throw new CarrierRejected('whatsapp-media-count', 'A WhatsApp message carries one file');
  if (media.length === 0) return { messageType: 'text', text };
  const kind = vonageMediaKind('whatsapp', media[0]!);
  // WhatsApp shows no caption under a voice note: its text would be lost.
  if (kind === 'audio' && text) throw new CarrierRejected('whatsapp-audio-caption', 'A WhatsApp audio file carries no text: send the text as its own message');
  return { messageType: kind, [kind]: kind === 'audio' ? { url: media[0] } : withCaption(media[0]!, text) };
}

function mms(message: Pick<CarrierSend, 'text' | 'media'>): Record<string, unknown> {
  const { media, text } = message;
  if (media.length === 1) {
    const kind = vonageMediaKind('mms', media[0]!);
    return { messageType: kind, [kind]: withCaption(media[0]!, text) };
  }
  return { messageType: 'content', content: media.map((url, i) => ({ type: vonageMediaKind('mms', url), ...(i === 0 ? withCaption(url, text) : { url }) })) };
}

/**
 * RCS from the number's RCS agent (`from`: its sender id), with `failover: [the same message as SMS/MMS
 * from the number]`, which Vonage sends when RCS is rejected or not delivered. Text with suggested
 * replies is `message_type: "text"` with `suggestions: [{ type: "reply", text, postback_data }]`; a file
 * with its text and suggestions is RBM's own standalone card as `message_type: "custom"` (which the SDK
 * sends untouched, in RBM's camelCase).
 */
function rcs(message: Pick<CarrierSend, 'to' | 'text' | 'media' | 'suggestions'>, agent: string, fallbackFrom: string): VonageOutbound {
  if (message.media.length > 1) throw new CarrierRejected('rcs-media-count', 'An RCS message carries one file');
  const replies = (message.suggestions ?? []).map((s) => ({ text: s.text, postbackData: s.postbackData }));
  const failover = [vonageOutbound({ ...message, channel: 'sms', template: undefined }, fallbackFrom)];
  const base = { channel: 'rcs' as const, to: vonageNumber(message.to), from: agent, failover };
  if (message.media.length === 0) return { ...base, messageType: 'text', text: message.text, ...(replies.length > 0 && { suggestions: replies.map((r) => ({ type: 'reply', ...r })) }) };
  const cardContent = {
    ...(message.text ? { description: message.text } : {}),
    media: { height: 'MEDIUM', contentInfo: { fileUrl: httpsMediaUrl(message.media[0]!).href } },
    ...(replies.length > 0 && { suggestions: replies.map((reply) => ({ reply })) }),
  };
  return { ...base, messageType: 'custom', custom: { contentMessage: { richCard: { standaloneCard: { cardOrientation: 'VERTICAL', cardContent } } } } };
}

/** The request for a message (without `clientRef` and `webhookUrl`, which the carrier adds); RCS needs the number's agent (`rcsAgent`). */
export function vonageOutbound(message: Pick<CarrierSend, 'to' | 'text' | 'channel' | 'media' | 'template' | 'suggestions'>, from: string, rcsAgent?: string): VonageOutbound {
  const numbers = { to: vonageNumber(message.to), from: vonageNumber(from) };
  if (message.channel === 'whatsapp') return { channel: 'whatsapp', ...numbers, ...whatsapp(message) } as VonageOutbound;
  if (message.channel === 'rcs') {
    if (!rcsAgent) throw new CarrierRejected('rcs-sender', 'The number has no RCS agent (rcs_agent)');
    return rcs(message, rcsAgent, from);
  }
  if (message.template) throw new CarrierRejected('template-channel', 'A template is sent on WhatsApp only');
  if (message.media.length > 0) return { channel: 'mms', ...numbers, ...mms(message) } as VonageOutbound;
  return { channel: 'sms', ...numbers, messageType: 'text', text: message.text };
}
