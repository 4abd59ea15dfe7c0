import { findMessage, type MessageWithClient } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { NotFound } from '../errors';

const MESSAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Any business's message, for the operator holding its id (from the Temporal UI): a 404 when there is none. */
export async function messageForOperator(prisma: Prisma, id: string): Promise<MessageWithClient> {
  const message = MESSAGE_ID.test(id) ? await findMessage(prisma, id) : null;
  if (!message) throw new NotFound('Message not found');
  return message;
}
