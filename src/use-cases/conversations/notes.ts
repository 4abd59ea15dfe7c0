import { insertNote } from '../../db/conversation-notes';
import { noteEvent, withEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { noteView } from '../../views/conversation';
import { findOwnedAgent } from '../agents/owned-agent';
import { parseBody } from '../input/validation';
import { NoteRequest } from './contract';
import { findOwnedConversation } from './owned-conversation';


/** `POST /conversations/{_id}/notes { agent, text }`: an internal note in the thread, never sent to the client or a carrier; `conversation.note_added`. */
export async function addNote(prisma: Prisma, scope: Scope, id: string, body: unknown) {
  const request = parseBody(NoteRequest, body);
  const conversation = await findOwnedConversation(prisma, scope, id);
  const agent = await findOwnedAgent(prisma, scope, request.agent);
  const note = await withEvents(prisma, async (tx, record) => {
    const inserted = await insertNote(tx, { conversationId: conversation.id, agentPk: agent.pk, agentId: agent.id, text: request.text }, new Date());
    await record(noteEvent(conversation, inserted));
    return inserted;
  });
  return noteView(note);
}
