import type { Client as TemporalClient } from '@temporalio/client';
import { pingDatabase } from '../../db/prisma';
import { withTimeout } from '../../timeout';
import type { DatabaseDeps } from '../database';

const READINESS_TIMEOUT_MS = 2000;

export interface ReadinessDeps extends DatabaseDeps {
  temporal: TemporalClient;
}

type Reachability = 'ok' | 'unreachable';

/** `GET /readyz`: whether the database and the Temporal server each answer within the readiness timeout. */
export async function readiness({ prisma, temporal }: ReadinessDeps): Promise<{ ready: boolean; database: Reachability; temporal: Reachability }> {
  const deadline = Date.now() + READINESS_TIMEOUT_MS;
  const [database, temporalServer] = await Promise.all([
    withTimeout(pingDatabase(prisma), READINESS_TIMEOUT_MS).then((): Reachability => 'ok', (): Reachability => 'unreachable'),
    temporal.connection
      .withDeadline(deadline, () => temporal.connection.workflowService.getSystemInfo({}))
      .then((): Reachability => 'ok', (): Reachability => 'unreachable'),
  ]);
  return { ready: database === 'ok' && temporalServer === 'ok', database, temporal: temporalServer };
}
