import type { Conversation } from '../generated/prisma/client';

/** A conversation with its client's id, as views and events show it. */
export type ConversationRow = Conversation & { clientId: string };

/** An internal note with its agent's id. */
export interface NoteRow {
  id: string;
  conversationId: string;
  agentId: string;
  text: string;
  createdAt: Date;
}

const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

/** A conversation as `GET /conversations/{_id}` shows it; `unread` counts for the agent the request names (null without one). */
export const conversationView = (c: ConversationRow, assignees: string[], unread: number | null) => ({
  _id: c.id,
  client: c.clientId,
  sender: c.sender === '' ? null : c.sender,
  status: c.status,
  assignees,
  waiting_since: isoOrNull(c.waitingSince),
  last_inbound_at: isoOrNull(c.lastInboundAt),
  last_outbound_at: isoOrNull(c.lastOutboundAt),
  first_response_at: isoOrNull(c.firstResponseAt),
  snoozed_until: isoOrNull(c.snoozedUntil),
  unread,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
});

/** An internal note of a conversation's thread: never sent. */
export const noteView = (n: NoteRow) => ({
  _id: n.id,
  conversation: n.conversationId,
  internal: true as const,
  agent: n.agentId,
  text: n.text,
  created_at: n.createdAt.toISOString(),
});
