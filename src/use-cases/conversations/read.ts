import { moveReadHorizon } from '../../db/conversations';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { findOwnedAgent } from '../agents/owned-agent';
import { NotFound } from '../errors';
import { ReadRequest } from './contract';
import { parseBody } from '../input/validation';
import { viewsOf } from './list';
import { findOwnedConversation } from './owned-conversation';


/** `POST /conversations/{_id}/read { agent, message }`: the agent has read up to that message (its horizon never moves back); the conversation with the agent's unread count. */
export async function markRead(prisma: Prisma, scope: Scope, id: string, body: unknown) {
  const request = parseBody(ReadRequest, body);
  const conversation = await findOwnedConversation(prisma, scope, id);
  const agent = await findOwnedAgent(prisma, scope, request.agent);
  if (!(await moveReadHorizon(prisma, { conversationId: conversation.id, agentPk: agent.pk, messageId: request.message }, new Date()))) {
    throw new NotFound('Message not found in this conversation');
  }
  const [view] = await viewsOf(prisma, [conversation], agent.pk, new Date());
  return view;
}
