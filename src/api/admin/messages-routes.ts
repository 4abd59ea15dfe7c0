import { Router } from 'express';
import type { DatabaseDeps } from '../../use-cases/database';
import { unmatchedInboundPage } from '../../use-cases/messages/unmatched-inbound';
import { messageForOperator } from '../../use-cases/operator/messages';
import { operatorMessageView, operatorUnmatchedInboundView } from '../../views/operator-message';

export type OperatorMessageRoutesDeps = DatabaseDeps;

/** What an operator reads about messages: any business's message by id, and the inbound texts no message explains. */
export function operatorMessagesRouter(deps: OperatorMessageRoutesDeps): Router {
  const router = Router();
  router.get('/messages/:messageId', async (req, res) => {
    res.json(operatorMessageView(await messageForOperator(deps.prisma, String(req.params.messageId))));
  });
  router.get('/unmatched-inbound', async (req, res) => {
    const { rows, nextCursor } = await unmatchedInboundPage(deps.prisma, req.query);
    res.json({ texts: rows.map(operatorUnmatchedInboundView), next_cursor: nextCursor });
  });
  return router;
}
