import { Router, type RequestHandler } from 'express';
import { cachedReadiness, type ReadinessDeps } from '../../use-cases/health/readiness';

export type HealthDeps = ReadinessDeps;

/** `/healthz`, and `/readyz` answered from a readiness a second old at most, behind `doorBudget` (unauthenticated). */
export function healthRouter(deps: HealthDeps, doorBudget?: RequestHandler): Router {
  const router = Router();
  const readiness = cachedReadiness(deps);
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', ...(doorBudget ? [doorBudget] : []), async (_req, res) => {
    const { ready, database, temporal } = await readiness();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', database, temporal });
  });
  return router;
}
