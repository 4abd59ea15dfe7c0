import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { getConversationRequest, listConversationsRequest } from '../../use-cases/conversations/list';
import { addNote } from '../../use-cases/conversations/notes';
import { markRead } from '../../use-cases/conversations/read';
import { closeConversation, reopenConversation, snoozeConversation, type ConversationDeps } from '../../use-cases/conversations/status';
import { listThreadRequest } from '../../use-cases/conversations/thread';
import { refuseAnyField } from '../../use-cases/input/known-fields';

export type ConversationRoutesDeps = ConversationDeps;

/** The conversations of the caller (docs/conversations.md): lists, the thread, status, read horizons and notes. */
export function conversationsRouter(deps: ConversationRoutesDeps): Router {
  const { prisma } = deps;
  const router = Router({ mergeParams: true });
  router.get('/conversations', async (req, res) => {
    res.json(await listConversationsRequest(prisma, scopeOf(req), req.query));
  });
  router.get('/conversations/:conversationId', async (req, res) => {
    res.json(await getConversationRequest(prisma, scopeOf(req), req.params.conversationId, req.query));
  });
  router.get('/conversations/:conversationId/messages', async (req, res) => {
    res.json(await listThreadRequest(prisma, scopeOf(req), req.params.conversationId, req.query));
  });
  router.post('/conversations/:conversationId/snooze', async (req, res) => {
    res.json(await snoozeConversation(deps, scopeOf(req), req.params.conversationId, req.body));
  });
  router.post('/conversations/:conversationId/close', async (req, res) => {
    refuseAnyField(req.body);
    res.json(await closeConversation(deps, scopeOf(req), req.params.conversationId));
  });
  router.post('/conversations/:conversationId/reopen', async (req, res) => {
    refuseAnyField(req.body);
    res.json(await reopenConversation(deps, scopeOf(req), req.params.conversationId));
  });
  router.post('/conversations/:conversationId/read', async (req, res) => {
    res.json(await markRead(prisma, scopeOf(req), req.params.conversationId, req.body));
  });
  router.post('/conversations/:conversationId/notes', async (req, res) => {
    const note = await addNote(prisma, scopeOf(req), req.params.conversationId, req.body);
    res.status(201).json(note);
  });
  return router;
}
