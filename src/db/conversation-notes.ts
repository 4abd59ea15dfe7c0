import { randomUUID } from 'node:crypto';
import { Prisma as Db } from '../generated/prisma/client';
import type { NoteRow } from '../views/conversation';
import type { Prisma } from './prisma';

/* The internal notes of conversations (docs/conversations.md): never sent, erased with their client's conversations. */

type Tx = Db.TransactionClient;

export type { NoteRow };

export async function insertNote(tx: Tx, note: { conversationId: string; agentPk: string; agentId: string; text: string }, now: Date): Promise<NoteRow> {
  const id = randomUUID();
  await tx.$executeRaw`INSERT INTO conversation_notes (id, conversation_id, agent_pk, text, created_at)
                       VALUES (${id}::uuid, ${note.conversationId}::uuid, ${note.agentPk}::uuid, ${note.text}, ${now})`;
  return { id, conversationId: note.conversationId, agentId: note.agentId, text: note.text, createdAt: now };
}

/** An item of a thread: a message (its id) or a note (its row), in the thread's order. */
export type ThreadItem = { kind: 'message'; id: string; createdAt: Date } | { kind: 'note'; id: string; createdAt: Date; note: NoteRow };

/**
 * One page of a conversation's thread, newest first: its messages and its notes by creation time (then
 * id), after `before` (the position of the last item of the page before).
 */
export async function threadPage(db: Prisma | Tx, conversationId: string, take: number, before?: { at: Date; id: string }): Promise<ThreadItem[]> {
  const after = before ? Db.sql`AND (t.created_at, t.id) < (${before.at}, ${before.id}::uuid)` : Db.empty;
  const rows = await db.$queryRaw<{ kind: 'message' | 'note'; id: string; created_at: Date; text: string | null; agent_id: string | null }[]>`
    SELECT * FROM (
      SELECT 'message' AS kind, m.id, m.created_at, NULL::text AS text, NULL::text AS agent_id FROM messages m WHERE m.conversation_id = ${conversationId}::uuid
      UNION ALL
      SELECT 'note', n.id, n.created_at, n.text, g.id FROM conversation_notes n JOIN agents g ON g.pk = n.agent_pk WHERE n.conversation_id = ${conversationId}::uuid
    ) t
    WHERE true ${after}
    ORDER BY t.created_at DESC, t.id DESC LIMIT ${take}`;
  return rows.map((r) =>
    r.kind === 'message'
      ? { kind: 'message', id: r.id, createdAt: r.created_at }
      : { kind: 'note', id: r.id, createdAt: r.created_at, note: { id: r.id, conversationId, agentId: r.agent_id!, text: r.text!, createdAt: r.created_at } },
  );
}
