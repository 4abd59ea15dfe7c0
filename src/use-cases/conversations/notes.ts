import { z } from 'zod';
import { insertNote } from '../../db/conversation-notes';
import { noteEvent, withEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { noteView } from '../../views/conversation';
import { findOwnedAgent } from '../agents/owned-agent';
import { isBlank, parseBody, resourceId } from '../input/validation';
import { findOwnedConversation } from './owned-conversation';

export const MAX_NOTE_LENGTH = 5000;

const noteBody = z.object({
  agent: resourceId,
  text: z
    .string({ error: 'is required' })
    .refine((text) => !isBlank(text), 'must not be empty')
    .refine((text) => [...text].length <= MAX_NOTE_LENGTH, `must be at most ${MAX_NOTE_LENGTH} characters`),
});

/** `POST /conversations/{_id}/notes { agent, text }`: an internal note in the thread, never sent to the client or a carrier; `conversation.note_added`. */
export async function addNote(prisma: Prisma, scope: Scope, id: string, body: unknown) {
  const request = parseBody(noteBody, body);
  const conversation = await findOwnedConversation(prisma, scope, id);
  const agent = await findOwnedAgent(prisma, scope, request.agent);
  const note = await withEvents(prisma, async (tx, record) => {
    const inserted = await insertNote(tx, { conversationId: conversation.id, agentPk: agent.pk, agentId: agent.id, text: request.text }, new Date());
    await record(noteEvent(conversation, inserted));
    return inserted;
  });
  return noteView(note);
}
