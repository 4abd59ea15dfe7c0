import { z } from 'zod';
import { moveReadHorizon } from '../../db/conversations';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { UUID } from '../input/page';
import { findOwnedAgent } from '../agents/owned-agent';
import { NotFound } from '../errors';
import { parseBody, resourceId } from '../input/validation';
import { viewsOf } from './list';
import { findOwnedConversation } from './owned-conversation';

const readBody = z.object({
  agent: resourceId,
  message: z.string({ error: 'is required: the _id of the last message read' }).regex(UUID, 'must be the _id of a message of this conversation'),
});

/** `POST /conversations/{_id}/read { agent, message }`: the agent has read up to that message (its horizon never moves back); the conversation with the agent's unread count. */
export async function markRead(prisma: Prisma, scope: Scope, id: string, body: unknown) {
  const request = parseBody(readBody, body);
  const conversation = await findOwnedConversation(prisma, scope, id);
  const agent = await findOwnedAgent(prisma, scope, request.agent);
  if (!(await moveReadHorizon(prisma, { conversationId: conversation.id, agentPk: agent.pk, messageId: request.message }, new Date()))) {
    throw new NotFound('Message not found in this conversation');
  }
  const [view] = await viewsOf(prisma, [conversation], agent.pk, new Date());
  return view;
}
