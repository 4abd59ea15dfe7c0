import { findOwnedMessage as findMessage, type MessageWithClient } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { NotFound } from '../errors';
import type { Scope } from '../../db/scope';

const MESSAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's message, or the same 404 whether it is missing, another's, or not a message id at all. */
export async function findOwnedMessage(prisma: Prisma, scope: Scope, id: string): Promise<MessageWithClient> {
  const message = MESSAGE_ID.test(id) ? await findMessage(prisma, scope, id) : null;
  if (!message) throw new NotFound('Message not found');
  return message;
}
