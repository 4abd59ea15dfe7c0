import { Router } from 'express';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../../db/prisma';
import { withTimeout } from '../../timeout';

const READINESS_TIMEOUT_MS = 2000;

export interface HealthDeps {
  prisma: Prisma;
  temporal: TemporalClient;
}

export function healthRouter({ prisma, temporal }: HealthDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const deadline = Date.now() + READINESS_TIMEOUT_MS;
    const [database, temporalServer] = await Promise.all([
      withTimeout(prisma.$queryRaw`SELECT 1`, READINESS_TIMEOUT_MS).then(() => 'ok', () => 'unreachable'),
      temporal.connection
        .withDeadline(deadline, () => temporal.connection.workflowService.getSystemInfo({}))
        .then(() => 'ok', () => 'unreachable'),
    ]);
    const ready = database === 'ok' && temporalServer === 'ok';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', database, temporal: temporalServer });
  });
  return router;
}
