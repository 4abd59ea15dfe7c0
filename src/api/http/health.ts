import { Router } from 'express';
import { readiness, type ReadinessDeps } from '../../use-cases/health/readiness';

export type HealthDeps = ReadinessDeps;

export function healthRouter(deps: HealthDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const { ready, database, temporal } = await readiness(deps);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', database, temporal });
  });
  return router;
}
