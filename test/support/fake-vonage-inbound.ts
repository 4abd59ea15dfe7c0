import { randomUUID } from 'node:crypto';

/*
 * Vonage's inbound-message webhooks for WhatsApp and MMS (Messages API v1), as the fake posts them:
 * `{ channel, message_uuid, to, from, timestamp, message_type, … }` with a text as `text` and a file
 * under its type's name (`image: { url, caption? }`, WhatsApp `file: { url, caption?, name? }`), the URL
 * on Vonage's media servers (here the fake's `/v3/media/<id>`). Numbers are E.164 without the `+`.
 */

export interface VonageInboundContent {
  text?: string;
  /** A file: its kind as Vonage names it (image, video, audio, file; MMS also vcard), its URL and caption. */
  file?: { kind: string; url: string; caption?: string; name?: string };
}

export function vonageInboundBody(channel: 'whatsapp' | 'mms', from: string, to: string, content: VonageInboundContent, uuid = randomUUID()): string {
  const { file, text } = content;
  const type = file ? file.kind : 'text';
  return JSON.stringify({
    channel,
    message_uuid: uuid,
    to: to.replace(/^\+/, ''),
    from: from.replace(/^\+/, ''),
    timestamp: new Date().toISOString(),
    message_type: type,
    ...(file
      ? { [type]: { url: file.url, ...(file.caption !== undefined ? { caption: file.caption } : {}), ...(file.name !== undefined ? { name: file.name } : {}) } }
      : { text: text ?? '' }),
    ...(channel === 'whatsapp' ? { profile: { name: 'A client' }, context_status: 'none' } : { origin: { network_code: '310260' } }),
  });
}
