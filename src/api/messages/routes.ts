import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { sendMessageRequest, type AcceptDeps } from '../../use-cases/messages/accept';
import { cancelMessage, type CancelDeps } from '../../use-cases/messages/cancel';
import { listClientMessages, listMessages } from '../../use-cases/messages/list';
import { findOwnedMessage } from '../../use-cases/messages/owned-message';
import { inboundMedia, type MediaDeps } from '../../use-cases/messages/media';
import { pipeline } from 'node:stream/promises';
import { acceptedView, messageView } from '../../views/message';
import { refuseAnyField } from '../../use-cases/input/known-fields';

export type MessageRoutesDeps = AcceptDeps & CancelDeps & MediaDeps;

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

  // A file of an inbound message (MMS, WhatsApp), streamed from the carrier: the caller never needs the carrier's credentials.
  router.get('/messages/:messageId/media/:index', async (req, res) => {
    const file = await inboundMedia(deps, scopeOf(req), req.params.messageId, req.params.index);
    res.status(200).set({ 'Cache-Control': 'private, no-store', 'Content-Disposition': 'attachment' });
    // The carrier's type as it is: Express's set() would add a charset of its own to a text type (text/vcard; charset=utf-8).
    res.setHeader('Content-Type', file.contentType ?? 'application/octet-stream');
    if (file.size !== null) res.set('Content-Length', String(file.size));
    await pipeline(file.body, res).catch(() => res.destroy());
  });

  router.post('/messages/:messageId/cancel', async (req, res) => {
    refuseAnyField(req.body);
    res.json(messageView(await cancelMessage(deps, scopeOf(req), req.params.messageId)));
  });

  return router;
}
