import { randomUUID } from 'node:crypto';

/*
 * The Telnyx fake's records as Telnyx shows them: the message payload of its webhooks and
 * `GET /v2/messages/{id}` (SMS, MMS, WhatsApp), a client's `message.received` payload, and the message
 * detail records of `GET /v2/detail_records`.
 */

export interface FakeMessage {
  id: string;
  type: 'SMS' | 'MMS' | 'WHATSAPP' | 'RCS';
  from: string;
  to: string;
  /** The text, a file's caption, or '' (a template). */
  text: string;
  media: string[];
  /** A WhatsApp message's `whatsapp_message` as Telnyx took it. */
  whatsapp?: Record<string, any>;
  /** An RCS send (`POST /v2/messages/rcs`): its agent, whether the fallback went instead, the content as Telnyx took it. */
  rcs?: { agentId: string; fellBack: boolean; content?: Record<string, any> };
  messaging_profile_id: string;
  webhook_url: string | null;
  received_at: string;
  status: string;
  /** Set once a final receipt was posted: a detail record then names the webhook it went to. */
  finalized: boolean;
  cost: { amount: string; currency: string } | null;
}

const FINAL = ['delivered', 'read', 'delivery_failed', 'sending_failed', 'delivery_unconfirmed', 'expired'];

/** The outbound message's payload as its webhooks carry it, with the recipient's status and the errors. */
export function outboundPayload(message: FakeMessage, status: string, errors: { code: string; title: string }[] = []): Record<string, unknown> {
  return {
    record_type: 'message',
    direction: 'outbound',
    id: message.id,
    type: message.type,
    messaging_profile_id: message.messaging_profile_id,
    from: message.type === 'RCS' ? { agent_id: message.from, agent_name: 'Fake agent', carrier: 'Telnyx' } : { phone_number: message.from, carrier: 'Telnyx', line_type: 'Wireless' },
    to: [{ phone_number: message.to, status, carrier: 'T-Mobile USA', line_type: 'Wireless' }],
    cc: [],
    text: message.text,
    media: message.media.map((url) => ({ url, content_type: null, sha256: null, size: null })),
    ...(message.whatsapp ? { body: message.whatsapp } : {}),
    ...(message.type === 'RCS' && message.rcs?.content ? { body: { content_message: message.rcs.content } } : {}),
    webhook_url: message.webhook_url,
    webhook_failover_url: null,
    encoding: 'GSM-7',
    parts: 1,
    tags: [],
    cost: message.cost,
    received_at: message.received_at,
    sent_at: new Date().toISOString(),
    completed_at: FINAL.includes(status) ? new Date().toISOString() : null,
    valid_until: null,
    errors: errors.map((e) => ({ ...e, detail: `The message to ${message.to} failed.` })),
  };
}

export interface InboundFile {
  url: string;
  contentType: string;
  size: number;
  sha256: string;
  /** WhatsApp's kind of file (image, video, audio, document). */
  kind?: string;
}

/** A WhatsApp message Telnyx took (`POST /v2/messages/whatsapp`). */
export function whatsappMessageOf(from: string, to: string, content: Record<string, any>, webhookUrl: string | undefined, profileId: string): FakeMessage {
  const part = content[content.type];
  return {
    id: randomUUID(),
    type: 'WHATSAPP',
    from,
    to,
    text: content.type === 'text' ? part.body : (part.caption ?? ''),
    media: part?.link ? [part.link] : [],
    whatsapp: content,
    messaging_profile_id: profileId,
    webhook_url: webhookUrl ?? null,
    received_at: new Date().toISOString(),
    status: 'queued',
    finalized: false,
    cost: null,
  };
}

/** A client's message as `message.received` carries it: SMS, MMS (text and `media`), or WhatsApp (one E.164 `to`, Meta's message under `body`). */
export function inboundPayload(type: 'SMS' | 'MMS' | 'WHATSAPP', profileId: string, url: string, from: string, to: string, text: string, files: InboundFile[] = []): Record<string, unknown> & { id: string } {
  const id = randomUUID();
  const media = files.map((f) => ({ url: f.url, content_type: f.contentType, size: f.size, hash_sha256: f.sha256 }));
  const whatsapp = type === 'WHATSAPP';
  const kind = files[0]?.kind ?? 'image';
  const body = whatsapp
    ? files.length > 0
      ? { type: kind, [kind]: { id: randomUUID(), mime_type: files[0]!.contentType, sha256: files[0]!.sha256, ...(text ? { caption: text } : {}) }, from: from.replace(/^\+/, ''), timestamp: String(Math.floor(Date.now() / 1000)) }
      : { type: 'text', text: { body: text }, from: from.replace(/^\+/, ''), timestamp: String(Math.floor(Date.now() / 1000)) }
    : undefined;
  return {
    record_type: 'message',
    direction: 'inbound',
    id,
    type,
    messaging_profile_id: profileId,
    from: { phone_number: from, carrier: whatsapp ? '' : 'T-Mobile USA', line_type: whatsapp ? '' : 'Wireless' },
    to: whatsapp ? to : [{ phone_number: to, status: 'webhook_delivered', carrier: 'Telnyx', line_type: 'Wireless' }],
    cc: [],
    text,
    media,
    ...(body ? { body } : {}),
    encoding: 'GSM-7',
    parts: 1,
    tags: [],
    cost: null,
    received_at: new Date().toISOString(),
    sent_at: null,
    completed_at: null,
    valid_until: null,
    webhook_url: url,
    webhook_failover_url: null,
    errors: [],
  };
}

/** Message detail records: `filter[record_type]=messaging` required; `cld`, `direction`, `created_at[gte]`; newest first. */
export function detailRecords(messages: Iterable<FakeMessage>, query: URLSearchParams): { status: number; body: unknown } {
  if (query.get('filter[record_type]') !== 'messaging') {
    return { status: 400, body: { errors: [{ code: '10004', title: 'Missing required parameter', detail: 'filter[record_type] must be specified.' }] } };
  }
  const cld = query.get('filter[cld]');
  const direction = query.get('filter[direction]');
  const since = query.get('filter[created_at][gte]');
  const records = [...messages]
    .filter((m) => (cld === null || m.to === cld) && (direction === null || direction === 'outbound') && (since === null || m.received_at >= new Date(since).toISOString()))
    .sort((a, b) => (query.get('sort') === '-created_at' ? b.received_at.localeCompare(a.received_at) : a.received_at.localeCompare(b.received_at)))
    .map((m) => ({
      record_type: 'message_detail_record',
      uuid: m.id,
      cld: m.to,
      cli: m.from,
      direction: 'outbound',
      message_type: m.type,
      parts: 1,
      profile_id: m.messaging_profile_id,
      created_at: m.received_at,
      updated_at: m.received_at,
      status: m.status === 'delivered' || m.status === 'read' ? 'delivered' : m.finalized ? 'failed' : undefined,
      cost: m.cost?.amount,
      currency: m.cost?.currency,
      // Telnyx names the webhook only once it has posted the final status to it.
      ...(m.finalized ? { delivery_status_webhook_url: m.webhook_url, delivery_status: 'success: webhook succeeded' } : {}),
    }));
  const size = Number(query.get('page[size]') ?? 20);
  const number = Number(query.get('page[number]') ?? 1);
  const page = records.slice((number - 1) * size, number * size);
  return { status: 200, body: { data: page, meta: { page_number: number, page_size: size, total_pages: Math.max(1, Math.ceil(records.length / size)), total_results: records.length } } };
}
