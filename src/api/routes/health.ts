import { Router } from 'express';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../../db/prisma';

export function healthRouter({ prisma, temporal }: { prisma: Prisma; temporal: TemporalClient }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [database, temporalServer] = await Promise.all([
      prisma.$queryRaw`SELECT 1`.then(() => 'ok', () => 'unreachable'),
      temporal.connection.workflowService.getSystemInfo({}).then(() => 'ok', () => 'unreachable'),
    ]);
    const ready = database === 'ok' && temporalServer === 'ok';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', database, temporal: temporalServer });
  });
  return router;
}
