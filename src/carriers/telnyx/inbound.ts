import type { Inbound, InboundMedia } from '../types';
import { dateOf, eventOf, rcsAgentOf, REF, string } from './events';

/*
 * Telnyx's `message.received` (payload: `id`, `type` SMS | MMS | WHATSAPP, `from.phone_number`, `text`,
 * `media: [{ url, content_type, size }]`). SMS and MMS name the recipients in an array `to: [{
 * phone_number }]`; WhatsApp in one E.164 string, with Meta's message under `body` (`body.type`,
 * `body.text.body`, `body.<type>` for a file: `{ link | url, caption, mime_type }`). A WhatsApp message's
 * files are read from `media` when Telnyx lists them there, else from `body`. Its edits, revocations,
 * reactions, locations and contacts carry no text or file we keep: null.
 */

const CONTENT_TYPE = /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/i;
const URL_REF = /^https?:\/\/[^\s]{1,2000}$/;
const WHATSAPP_FILES = ['image', 'video', 'audio', 'document', 'sticker'];

type Fields = Record<string, unknown>;

function mediaItem(url: unknown, contentType: unknown, size: unknown): InboundMedia | undefined {
  const link = string(url);
  if (!link || !URL_REF.test(link)) return undefined;
  const type = string(contentType);
  return { url: link, contentType: type && CONTENT_TYPE.test(type) ? type : null, size: typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? size : null };
}

/** The files of `payload.media`. */
function listedMedia(media: unknown): InboundMedia[] {
  if (!Array.isArray(media)) return [];
  return media.flatMap((item: Fields | null) => mediaItem(item?.url, item?.content_type, item?.size) ?? []);
}

/** A WhatsApp message's text and files; undefined for a kind we do not keep. */
function whatsappContent(payload: Fields): { text: string; media: InboundMedia[] } | undefined {
  const body = (payload.body ?? {}) as Fields;
  const type = string(body.type) ?? 'text';
  const listed = listedMedia(payload.media);
  const part = (body[type] ?? {}) as Fields;
  if (type === 'text') {
    const text = typeof payload.text === 'string' ? payload.text : typeof body.text === 'string' ? body.text : string((body.text as Fields | undefined)?.body);
    return text === undefined ? undefined : { text, media: [] };
  }
  if (WHATSAPP_FILES.includes(type)) {
    const media = listed.length > 0 ? listed : [mediaItem(part.link ?? part.url, part.mime_type, part.file_size)].flatMap((item) => item ?? []);
    if (media.length === 0) return undefined;
    const caption = typeof payload.text === 'string' && payload.text ? payload.text : typeof part.caption === 'string' ? part.caption : '';
    return { text: caption, media };
  }
  if (type === 'button') return typeof part.text === 'string' ? { text: part.text, media: [] } : undefined;
  if (type === 'interactive') {
    const reply = (part.button_reply ?? part.list_reply) as Fields | undefined;
    return typeof reply?.title === 'string' ? { text: reply.title, media: [] } : undefined;
  }
  return undefined;
}

const phoneOf = (party: unknown) => string((party as { phone_number?: unknown } | undefined)?.phone_number);

/**
 * An RCS message (`type: "RCS"`, to our agent `to[0].agent_id`): `body.text`, or a tapped suggestion
 * `body.suggestion_response { text, postback_data }`; its files (`body.user_file`) are not kept: null.
 */
function rcsInbound(payload: Fields, providerRef: string | undefined, receivedAt: Date): Inbound | null {
  const body = (payload.body ?? {}) as Fields;
  const from = phoneOf(payload.from);
  const agent = rcsAgentOf(payload);
  const tap = body.suggestion_response as Fields | undefined;
  const text = typeof tap?.text === 'string' ? tap.text : typeof body.text === 'string' ? body.text : typeof payload.text === 'string' ? payload.text : undefined;
  if (!providerRef || !REF.test(providerRef) || !from || !agent || text === undefined) return null;
  const postback = string(tap?.postback_data);
  return { providerRef, from, to: agent, text, receivedAt, channel: 'rcs', media: [], ...(tap && { suggestion: { text, postbackData: postback ?? text } }) };
}

/** A message from a client, from `message.received`; null for any other event or one missing its parts; throws for a body that is no event. */
export function inboundOf(rawBody: Buffer, now = new Date()): Inbound | null {
  const event = eventOf(rawBody);
  if (event.event_type !== 'message.received') return null;
  const payload = event.payload!;
  const providerRef = string(payload.id);
  if (payload.type === 'RCS') return rcsInbound(payload, providerRef, dateOf(payload.received_at) ?? dateOf(event.occurred_at) ?? now);
  const whatsapp = payload.type === 'WHATSAPP';
  const from = phoneOf(payload.from) ?? (whatsapp ? string((payload.body as Fields | undefined)?.from) : undefined);
  const to = Array.isArray(payload.to) ? phoneOf(payload.to[0]) : string(payload.to);
  const media = listedMedia(payload.media);
  const content = whatsapp
    ? whatsappContent(payload)
    : typeof payload.text === 'string' || media.length > 0
      ? { text: typeof payload.text === 'string' ? payload.text : '', media }
      : undefined;
  if (!providerRef || !REF.test(providerRef) || !from || !to || !content) return null;
  // WhatsApp's numbers are E.164 (Meta's own fields drop the `+`); SMS and MMS keep Telnyx's form (short codes).
  const e164 = (number: string) => (whatsapp && /^\d{6,15}$/.test(number) ? `+${number}` : number);
  return {
    providerRef,
    from: e164(from),
    to: e164(to),
    text: content.text,
    receivedAt: dateOf(payload.received_at) ?? dateOf(event.occurred_at) ?? now,
    channel: whatsapp ? 'whatsapp' : 'sms',
    media: content.media,
  };
}
