import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { sendMessageRequest, type AcceptDeps } from '../../use-cases/messages/accept';
import { cancelMessage, type CancelDeps } from '../../use-cases/messages/cancel';
import { listClientMessages, listMessages } from '../../use-cases/messages/list';
import { findOwnedMessage } from '../../use-cases/messages/owned-message';
import { acceptedView, messageView } from '../../views/message';

export type MessageRoutesDeps = AcceptDeps & CancelDeps;

export function messagesRouter(deps: MessageRoutesDeps): Router {
  const { prisma } = deps;
  const router = Router({ mergeParams: true });

  router.post('/messages', async (req, res) => {
    const scope = scopeOf(req);
    const { message, replayed } = await sendMessageRequest(deps, scope, req.body, req.get('Idempotency-Key'), String(req.id));
    if (replayed) res.set('Idempotent-Replayed', 'true');
    res.status(202).location(`/ext/v2/${scope.business}/messages/${message.id}`).json(acceptedView(message));
  });

  router.get('/messages', async (req, res) => {
    res.json(await listMessages(prisma, scopeOf(req), req.query));
  });

  // One client's conversation: what was sent to it and what it sent, newest first.
  router.get('/clients/:clientId/messages', async (req, res) => {
    res.json(await listClientMessages(prisma, scopeOf(req), req.params.clientId, req.query));
  });

  router.get('/messages/:messageId', async (req, res) => {
    res.json(messageView(await findOwnedMessage(prisma, scopeOf(req), req.params.messageId)));
  });

  router.post('/messages/:messageId/cancel', async (req, res) => {
    res.json(messageView(await cancelMessage(deps, scopeOf(req), req.params.messageId)));
  });

  return router;
}
