import { Router } from 'express';
import type { AppDeps } from '../app';
import type { Prisma } from '../../db/prisma';
import { readIdempotencyKey } from '../message-idempotency';
import { listMessages } from '../message-list';
import { parseMessageRequest } from '../message-request';
import { storeMessage } from '../message-store';
import { acceptedView, messageView, type MessageWithClient } from '../message-view';
import { notifyMessageWorkflow, startMessageWorkflow } from '../message-workflow';
import { conflict, HttpProblem, notFound } from '../problem';
import { scopeOf, type Scope } from '../scope';

const MESSAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function findMessage(prisma: Prisma, scope: Scope, id: string): Promise<MessageWithClient> {
  const message = MESSAGE_ID.test(id)
    ? await prisma.message.findFirst({ where: { id, ...scope }, include: { client: { select: { id: true } } } })
    : null;
  if (!message) throw notFound('Message not found');
  return message;
}

export function messagesRouter({ prisma, temporal, taskQueue, log }: AppDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/messages', async (req, res) => {
    const scope = scopeOf(req);
    const idempotencyKey = readIdempotencyKey(req.get('Idempotency-Key'));
    const request = await parseMessageRequest(req.body, (id) =>
      prisma.client.findUnique({ where: { business_ownerId_id: { ...scope, id } }, select: { pk: true, id: true, phone: true, name: true } }),
    );
    const { message, replayed } = await storeMessage(prisma, scope, request, idempotencyKey);

    try {
      // A replay heals a crash between storing and starting; once the message has left `scheduled`, its workflow ran.
      if (!replayed || message.status === 'scheduled') {
        await startMessageWorkflow(temporal, taskQueue, { ...message, clientId: request.client?.id ?? null });
      }
    } catch (error) {
      log?.(error);
      if (idempotencyKey) {
        throw new HttpProblem(503, 'The message is stored but not scheduled yet: repeat the request with the same Idempotency-Key', '/problems/unavailable');
      }
      // Without a key nobody can heal it, so it must not look scheduled; a workflow that did start finds it failed.
      const abandoned = await prisma.message.updateMany({
        where: { id: message.id, status: 'scheduled' },
        data: { status: 'failed', error: 'Could not be scheduled' },
      });
      if (abandoned.count > 0) throw new HttpProblem(503, 'The message could not be scheduled and will not be sent: try again', '/problems/unavailable');
      // Otherwise its workflow did start and has already claimed it.
    }

    if (replayed) res.set('Idempotent-Replayed', 'true');
    res.status(202).location(`/ext/v2/${scope.business}/messages/${message.id}`).json(acceptedView(message));
  });

  router.get('/messages', async (req, res) => {
    res.json(await listMessages(prisma, scopeOf(req), req.query));
  });

  router.get('/messages/:messageId', async (req, res) => {
    res.json(messageView(await findMessage(prisma, scopeOf(req), req.params.messageId)));
  });

  router.post('/messages/:messageId/cancel', async (req, res) => {
    const scope = scopeOf(req);
    const message = await findMessage(prisma, scope, req.params.messageId);
    const canceled = await prisma.message.updateMany({
      where: { id: message.id, status: 'scheduled' },
      data: { status: 'canceled', canceledAt: new Date() },
    });
    const current = await findMessage(prisma, scope, message.id);
    if (canceled.count === 0 && current.status !== 'canceled') {
      throw conflict(`Message ${message.id} can no longer be canceled: it is ${current.status}`);
    }
    if (canceled.count > 0) await notifyMessageWorkflow(temporal, message.workflowId);
    res.json(messageView(current));
  });

  return router;
}
