import type { Assignment, Message, Rotation } from '../generated/prisma/client';
import { type EventReason, type EventType } from '../domain';
import { type NewEvent, eventOf } from '../domain/event-payloads';
import { assignmentView } from './assignment';
import { deletedClientView } from './client';
import { conversationView, noteView, type ConversationRow, type NoteRow } from './conversation';
import { messageView } from './message';
import { rotationView } from './rotation';

/* The data of each kind of event: the resource as its GET route shows it, and the reason (test/events/payloads.test.ts). */

export type AssignmentWithKeys = Assignment & { agent: { id: string }; client: { id: string; business: string; ownerId: string } };

/** An assignment event: the item as `GET /clients/{_id}/agents` shows it, with its client and the reason. */
export function assignmentEvent(type: EventType, row: AssignmentWithKeys, reason: EventReason): NewEvent {
  const subject = { business: row.client.business, ownerId: row.client.ownerId, clientPk: row.clientPk, clientId: row.client.id };
  return eventOf(type, subject, { client: row.client.id, ...assignmentView(row) }, reason);
}

/** `client.deleted`: the erased client's id and when; its reason `api` (its owner's DELETE). */
export function clientDeletedEvent(row: { pk: string; id: string; business: string; ownerId: string; deletedAt: Date | null }): NewEvent {
  return eventOf('client.deleted', { business: row.business, ownerId: row.ownerId, clientPk: row.pk, clientId: row.id }, deletedClientView(row), 'api');
}

/** A message event: the message as `GET /messages/{_id}` shows it, and the reason. */
export function messageEvent(type: EventType, row: Message & { client: { id: string } | null }, reason: EventReason): NewEvent {
  return eventOf(type, { business: row.business, ownerId: row.ownerId, clientPk: row.clientPk, clientId: row.client?.id ?? null }, messageView(row), reason);
}

/** A conversation event: the conversation after the change (without `unread`, which is an agent's), and the reason. */
export function conversationEvent(type: EventType, row: ConversationRow, assignees: string[], reason: EventReason): NewEvent {
  return eventOf(type, row, conversationView(row, assignees, null), reason);
}

/** A note added to a conversation: the note, its client, and the reason (`api`). */
export function noteEvent(conversation: ConversationRow, note: NoteRow): NewEvent {
  return eventOf('conversation.note_added', conversation, { ...noteView(note), client: conversation.clientId }, 'api');
}

/** A rotation event: the rotation as `GET /clients/{_id}/rotation` shows it after the change, and the reason. */
export function rotationEvent(type: EventType, row: Rotation & { client: { id: string } }, reason: EventReason): NewEvent {
  return eventOf(type, { business: row.business, ownerId: row.ownerId, clientPk: row.clientPk, clientId: row.client.id }, rotationView(row), reason);
}
