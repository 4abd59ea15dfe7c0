import { randomUUID } from 'node:crypto';
import type { Message } from '../generated/prisma/client';
import type { Prisma } from '../db/prisma';
import { isUniqueViolation } from '../db/errors';
import { messageWorkflowId } from '../workflows/definitions';
import { requestHash } from './message-idempotency';
import type { MessageRequest } from './message-request';
import { HttpProblem } from './problem';
import type { Scope } from './scope';

const idempotencyKeyReused = () =>
  new HttpProblem(422, 'Idempotency-Key was already used with a different request', '/problems/idempotency-key-reused');

/**
 * Stores a new scheduled message, or, for a repeated Idempotency-Key with the same request, finds the
 * first one (`replayed`). The unique index on (business, owner, key) decides between concurrent repeats.
 */
export async function storeMessage(
  prisma: Prisma,
  scope: Scope,
  request: MessageRequest,
  idempotencyKey: string | null,
): Promise<{ message: Message; replayed: boolean }> {
  const hash = idempotencyKey ? requestHash(request.fingerprint) : null;
  const previous = async () => {
    if (!idempotencyKey) return null;
    const first = await prisma.message.findFirst({ where: { ...scope, idempotencyKey } });
    if (first && first.requestHash !== hash) throw idempotencyKeyReused();
    return first;
  };

  const earlier = await previous();
  if (earlier) return { message: earlier, replayed: true };
  const id = randomUUID();
  try {
    const message = await prisma.message.create({
      data: {
        id,
        ...scope,
        clientPk: request.client?.pk ?? null,
        messageType: 'text',
        phone: request.phone,
        name: request.name,
        text: request.text,
        sendAt: request.sendAt,
        workflowId: messageWorkflowId(scope.business, id),
        idempotencyKey,
        requestHash: hash,
      },
    });
    return { message, replayed: false };
  } catch (error) {
    const winner = isUniqueViolation(error) ? await previous() : null;
    if (!winner) throw error;
    return { message: winner, replayed: true };
  }
}
