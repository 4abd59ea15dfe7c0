import { Prisma as Db } from '../../generated/prisma/client';
import { messageWorkflowId } from '../../domain';
import { conversationIdOf, outboundAnswerStatement } from '../conversations';
import { changeWithEvent, messageEvent } from '../events';
import type { Prisma } from '../prisma';
import type { Scope } from '../scope';
import { transition, withClientId, type MessageWithClient } from './transition';

export interface NewMessage {
  id: string;
  clientPk: string | null;
  /** The client's id as its owner named it, for the event. */
  clientId: string | null;
  phone: string;
  name: string | null;
  text: string;
  sendAt: Date;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** `GSM-7` or `UCS-2`, and the SMS parts the text takes. */
  encoding: string;
  segments: number;
  /** The quiet-hours window as the caller gave it, and when the message goes out because of it (null: at send_at). */
  sendWindow: { from: string; to: string; timezone?: string } | null;
  deferredUntil: Date | null;
  /** The carrier's sender it goes out from (opt-outs and replies are kept against it); null without a carrier. */
  sender: string | null;
  /** `sms` or `whatsapp`; its media `[{ url }]` (null: none); the WhatsApp template it names (null: none). */
  channel: string;
  media: { url: string }[] | null;
  template: StoredTemplate | null;
  /** RCS's suggested replies `[{ text, postback_data }]` (absent or null: none). */
  suggestions?: { text: string; postback_data: string }[] | null;
}

/** A message's template as stored: the caller's id and values, and the carrier's reference copied at accept. */
export interface StoredTemplate {
  _id: string;
  ref: { contentSid: string } | { name: string; language: string };
  variables: { name: string; value: string }[];
  /** The message has free text of its own: the template goes only when the text may not (outside WhatsApp's window). */
  fallback?: boolean;
  /** The template's rendering, the message's text when it goes instead (fallback only). */
  text?: string;
}

export function findMessageByIdempotencyKey(prisma: Prisma, scope: Scope, idempotencyKey: string): Promise<MessageWithClient | null> {
  return prisma.message.findFirst({ where: { ...scope, idempotencyKey }, include: withClientId });
}

/** A scheduled message row as the insert stores it and its message.scheduled event shows it. */
export function scheduledMessageRow(scope: Scope, message: NewMessage, now: Date, workflowId: string, batchId: string | null, conversationId: string | null = null): MessageWithClient {
  const { clientId, media, template, suggestions = null, ...fields } = message;
  return {
    ...scope,
    ...fields,
    media: media as Db.JsonValue,
    template: template as Db.JsonValue,
    suggestions: suggestions as Db.JsonValue,
    deliveredChannel: null,
    messageType: 'text',
    status: 'scheduled',
    workflowId,
    provider: null,
    providerRef: null,
    error: null,
    attempts: 0,
    createdAt: now,
    updatedAt: now,
    dispatchedAt: null,
    providerAcceptedAt: null,
    sentAt: null,
    canceledAt: null,
    canceledBy: null,
    direction: 'outbound',
    deliveredAt: null,
    errorCode: null,
    price: null,
    priceUnit: null,
    receiptAt: null,
    suppressedAt: null,
    suppressedReason: null,
    receivedAt: null,
    inboundKey: null,
    batchId,
    batchChunk: null,
    startConfirmed: false,
    conversationId,
    readAt: null,
    client: clientId === null ? null : { id: clientId },
  };
}

/**
 * Inserts a scheduled message with its message.scheduled event in one statement, or — when the owner
 * already used its Idempotency-Key — returns the first one as `replayed`. The unique index on
 * (business, owner, key) decides between concurrent repeats.
 */
export async function insertScheduledMessage(prisma: Prisma, scope: Scope, message: NewMessage): Promise<{ message: MessageWithClient; replayed: boolean }> {
  const now = new Date();
  const { sendWindow, media, template, suggestions = null } = message;
  // A client's message is in the conversation of its client and sender, which it creates or answers; a campaign's has none (src/db/message-batches.ts).
  const conversationId = message.clientPk ? conversationIdOf(message.clientPk, message.sender) : null;
  const row = scheduledMessageRow(scope, message, now, messageWorkflowId(scope.business, message.id), null, conversationId);
  const inserted = await changeWithEvent(
    prisma,
    Db.sql`INSERT INTO messages (id, business, owner_id, client_pk, message_type, phone, name, text, send_at, workflow_id, idempotency_key, request_hash,
                          encoding, segments, send_window, deferred_until, sender, conversation_id, channel, media, template, suggestions, created_at, updated_at)
      VALUES (${row.id}::uuid, ${row.business}, ${row.ownerId}, ${row.clientPk}::uuid, ${row.messageType}, ${row.phone}, ${row.name}, ${row.text}, ${row.sendAt},
              ${row.workflowId}, ${row.idempotencyKey}, ${row.requestHash}, ${row.encoding}, ${row.segments},
              ${sendWindow === null ? null : JSON.stringify(sendWindow)}::jsonb, ${row.deferredUntil}, ${row.sender}, ${conversationId}::uuid, ${row.channel},
              ${media === null ? null : JSON.stringify(media)}::jsonb, ${template === null ? null : JSON.stringify(template)}::jsonb,
              ${suggestions === null ? null : JSON.stringify(suggestions)}::jsonb, ${now}, ${now})
      ON CONFLICT (business, owner_id, idempotency_key) DO NOTHING
      RETURNING 1`,
    messageEvent('message.scheduled', row, 'api'),
    conversationId && message.clientPk ? outboundAnswerStatement(scope, { conversationId, clientPk: message.clientPk, sender: message.sender }, now) : undefined,
  );
  if (inserted) return { message: row, replayed: false };
  const winner = message.idempotencyKey ? await findMessageByIdempotencyKey(prisma, scope, message.idempotencyKey) : null;
  if (!winner) throw new Error(`Message ${message.id} was neither inserted nor found by its Idempotency-Key`);
  return { message: winner, replayed: true };
}

/** scheduled → failed, for a message whose workflow could not be started and that nobody can retry. */
export async function abandonScheduledMessage(prisma: Prisma, id: string): Promise<boolean> {
  return transition(prisma, { id, status: 'scheduled' }, { status: 'failed', error: 'Could not be scheduled' }, 'message.failed', 'api').then(Boolean);
}

/** Marks the messages whose workflow start the API saw succeed (not a status: `updated_at` stays). */
export async function confirmMessageStarts(prisma: Prisma, ids: string[]): Promise<void> {
  await prisma.$executeRaw`UPDATE messages SET start_confirmed = true WHERE id = ANY(${ids}::uuid[])`;
}
