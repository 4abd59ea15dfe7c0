import type { Inbound, InboundMedia } from '../types';
import { bodyOf, dateOf, e164Of, REF, string } from './webhooks';

/*
 * Vonage's inbound-message webhooks (Messages API v1): `{ channel, message_uuid, to, from, timestamp,
 * message_type, … }` with the content under the message type's name:
 * - `text`: `text` (SMS, MMS, WhatsApp);
 * - `image` / `video` / `audio` / `file` (and MMS `vcard`, WhatsApp `sticker`): `{ url, caption?, name? }`,
 *   the file on Vonage's media servers (fetched with the application's JWT when "Secure inbound media"
 *   is on: ./media.ts);
 * - WhatsApp `reply` (an interactive choice: `reply.title`) and `button` (a template's quick reply:
 *   `button.text`);
 * - RCS (`to`: our RCS agent's sender id) `text`, and `reply` (a tapped suggestion: `reply.title` its
 *   text, `reply.id` its postback data).
 * WhatsApp's other kinds (location, contacts, order, unsupported) carry no text or file we keep: null.
 * Vonage names no content type or size for a file: they come with the fetch.
 */

const MEDIA_TYPES: Record<string, readonly string[]> = {
  mms: ['image', 'video', 'audio', 'vcard', 'file'],
  whatsapp: ['image', 'video', 'audio', 'file', 'sticker'],
};

const CHANNELS = { sms: 'sms', mms: 'sms', whatsapp: 'whatsapp', rcs: 'rcs' } as const;

/** A URL as a reference, not prose. */
const URL_REF = /^https?:\/\/[^\s]{1,2000}$/;

type Content = { text: string; media: InboundMedia[]; suggestion?: { text: string; postbackData: string } };

/** The text and files of one message; undefined for a kind we do not keep. */
function contentOf(channel: keyof typeof CHANNELS, body: Record<string, unknown>): Content | undefined {
  const type = string(body.message_type) ?? 'text';
  if (type === 'text') return typeof body.text === 'string' ? { text: body.text, media: [] } : undefined;
  if (channel === 'sms') return undefined;
  const part = (body[type] ?? {}) as Record<string, unknown>;
  if (channel === 'rcs') {
    if (type !== 'reply' || typeof part.title !== 'string') return undefined;
    return { text: part.title, media: [], suggestion: { text: part.title, postbackData: string(part.id) ?? part.title } };
  }
  if (MEDIA_TYPES[channel]?.includes(type)) {
    const url = string(part.url);
    if (!url || !URL_REF.test(url)) return undefined;
    return { text: typeof part.caption === 'string' ? part.caption : '', media: [{ url, contentType: null, size: null }] };
  }
  if (channel === 'whatsapp' && type === 'reply') return typeof part.title === 'string' ? { text: part.title, media: [] } : undefined;
  if (channel === 'whatsapp' && type === 'button') return typeof part.text === 'string' ? { text: part.text, media: [] } : undefined;
  return undefined;
}

/** A message from a client; null for a status webhook, another channel or kind, or one missing its parts; throws for a body that is no JSON object. */
export function inboundOf(rawBody: Buffer, now = new Date()): Inbound | null {
  const body = bodyOf(rawBody);
  const channel = typeof body.channel === 'string' && Object.hasOwn(CHANNELS, body.channel) ? (body.channel as keyof typeof CHANNELS) : undefined;
  if (!channel || body.status !== undefined) return null;
  const providerRef = string(body.message_uuid);
  const from = string(body.from);
  const to = string(body.to);
  const content = contentOf(channel, body);
  if (!providerRef || !REF.test(providerRef) || !from || !to || !content) return null;
  return {
    providerRef,
    from: e164Of(from),
    to: channel === 'rcs' ? to : e164Of(to),
    text: content.text,
    receivedAt: dateOf(body.timestamp) ?? now,
    channel: CHANNELS[channel],
    media: content.media,
    ...(content.suggestion && { suggestion: content.suggestion }),
  };
}
