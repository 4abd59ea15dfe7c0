import type { Message } from '../generated/prisma/client';
import { changedBy } from './changed-by';

/** The 202 answer of a send, also for a replayed Idempotency-Key. */
export const acceptedView = (m: Message) => ({
  _id: m.id,
  status: m.status,
  send_at: m.sendAt.toISOString(),
  workflow_id: m.workflowId,
});

const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

/** The message and where it is in its lifecycle: `GET /messages/{_id}`, and the `data` of a message event. */
export const messageView = (m: Message & { client: { id: string } | null }) => ({
  ...acceptedView(m),
  message_type: m.messageType,
  client: m.client?.id ?? null,
  client_phone: m.phone,
  client_name: m.name,
  // Ours is the sender (the number or messaging service it went out from, or the number a reply came in to); the client's the phone.
  from: m.direction === 'inbound' ? m.phone : m.sender,
  to: m.direction === 'inbound' ? m.sender : m.phone,
  text_message: m.text,
  attempts: m.attempts,
  provider: m.provider,
  provider_ref: m.providerRef,
  error: m.error,
  created_at: m.createdAt.toISOString(),
  updated_at: m.updatedAt.toISOString(),
  dispatched_at: isoOrNull(m.dispatchedAt),
  sent_at: isoOrNull(m.sentAt),
  canceled_at: isoOrNull(m.canceledAt),
  canceled_by: m.status === 'canceled' ? changedBy(m.canceledBy) : null,
  direction: m.direction,
  encoding: m.encoding,
  segments: m.segments,
  send_window: m.sendWindow ?? null,
  deferred_until: isoOrNull(m.deferredUntil),
  delivered_at: isoOrNull(m.deliveredAt),
  error_code: m.errorCode,
  price: m.price === null ? null : { amount: m.price, unit: m.priceUnit },
  suppressed_at: isoOrNull(m.suppressedAt),
  suppressed_reason: m.suppressedReason,
  received_at: isoOrNull(m.receivedAt),
  batch_id: m.batchId,
  conversation: m.conversationId,
  channel: m.channel,
  media: mediaView(m),
  template: templateView(m.template),
  read_at: isoOrNull(m.readAt),
  ...rcsView(m),
});

/** Only an RCS message shows these: every other message's answer stays as it was before RCS. */
function rcsView(m: Pick<Message, 'channel' | 'direction' | 'deliveredChannel' | 'suggestions'>) {
  if (m.channel !== 'rcs') return {};
  const suggestions = Array.isArray(m.suggestions) ? (m.suggestions as { text: string; postback_data: string }[]).map(({ text, postback_data }) => ({ text, postback_data })) : [];
  return { delivered_channel: m.direction === 'inbound' ? 'rcs' : m.deliveredChannel, suggestions };
}

/**
 * Outbound: the URLs as the caller gave them. Inbound: where the API streams each file (the carrier's
 * own URL needs the carrier's credentials, which the caller never holds), its type and size.
 */
function mediaView(m: Pick<Message, 'id' | 'business' | 'direction' | 'media'>) {
  if (!Array.isArray(m.media)) return [];
  if (m.direction === 'outbound') return (m.media as { url: string }[]).map(({ url }) => ({ url }));
  return (m.media as { content_type: string | null; size: number | null }[]).map((file, n) => ({
    url: `/ext/v2/${encodeURIComponent(m.business)}/messages/${m.id}/media/${n}`,
    content_type: file.content_type,
    size: file.size,
  }));
}

/** The template the message names, with the caller's values; not the carrier's reference. */
function templateView(template: Message['template']) {
  if (template === null || typeof template !== 'object' || Array.isArray(template)) return null;
  const { _id, variables } = template as { _id: string; variables: { name: string; value: string }[] };
  return { _id, variables: Object.fromEntries(variables.map((v) => [v.name, v.value])) };
}
