import { Router } from 'express';
import type { DatabaseDeps } from '../../use-cases/database';
import { listOptOutsRequest } from '../../use-cases/opt-outs/list';
import { scopeOf } from '../http/scope';

export type OptOutRoutesDeps = DatabaseDeps;

/** `GET /opt-outs[?phone]`: the opt-out records of numbers the caller has texted. */
export function optOutsRouter({ prisma }: OptOutRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.get('/opt-outs', async (req, res) => {
    res.json(await listOptOutsRequest(prisma, scopeOf(req), req.query));
  });
  return router;
}
