import { Router } from 'express';
import type { DatabaseDeps } from '../../use-cases/database';
import { unmatchedInboundPage } from '../../use-cases/messages/unmatched-inbound';
import { unmatchedInboundView } from '../../views/operator-message';
import { scopeOf } from '../http/scope';

export type UnmatchedInboundRoutesDeps = DatabaseDeps;

/** `GET /unmatched-inbound`: the texts to the business's numbers that no message of one of its users explains. */
export function unmatchedInboundRouter({ prisma }: UnmatchedInboundRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.get('/unmatched-inbound', async (req, res) => {
    const { rows, nextCursor } = await unmatchedInboundPage(prisma, req.query, scopeOf(req).business);
    res.json({ texts: rows.map(unmatchedInboundView), next_cursor: nextCursor });
  });
  return router;
}
