import { Router } from 'express';
import type { Prisma } from '../../db/prisma';
import { scopeOf } from '../http/scope';
import { listFeed } from './list';

export interface EventRoutesDeps {
  prisma: Prisma;
}

export function eventsRouter({ prisma }: EventRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.get('/events', async (req, res) => {
    res.json(await listFeed(prisma, scopeOf(req), req.query));
  });
  return router;
}
