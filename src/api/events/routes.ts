import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import type { DatabaseDeps } from '../../use-cases/database';
import { listFeed } from '../../use-cases/events/feed';
import { scopeOf } from '../http/scope';

export interface EventRoutesDeps extends DatabaseDeps {
  /** Seals the feed's cursors (see cursorKeyOf); absent: a key of this app alone, whose cursors die with it. */
  cursorKey?: Buffer;
}

export function eventsRouter({ prisma, cursorKey = randomBytes(32) }: EventRoutesDeps): Router {
  const router = Router({ mergeParams: true });
  router.get('/events', async (req, res) => {
    res.json(await listFeed(prisma, cursorKey, scopeOf(req), req.query));
  });
  return router;
}
