import type { Client as TemporalClient } from '@temporalio/client';
import { pingDatabase } from '../../db/prisma';
import { startBudgetOf } from '../../starters/availability';
import { withTimeout } from '../../timeout';
import type { DatabaseDeps } from '../database';

const READINESS_TIMEOUT_MS = 2000;

export interface ReadinessDeps extends DatabaseDeps {
  temporal: TemporalClient;
}

type Reachability = 'ok' | 'unreachable';
export interface Readiness {
  ready: boolean;
  database: Reachability;
  temporal: Reachability;
}

/** How long one answer of readiness serves every probe: a flood of /readyz costs a database ping and a Temporal call a second, no more. */
export const READINESS_CACHE_MS = 1000;

/** `readiness`, asked at most once per `ttlMs` (counted from its answer); the probes that come meanwhile share it. */
export function cachedReadiness(deps: ReadinessDeps, ttlMs = READINESS_CACHE_MS, now: () => number = Date.now): () => Promise<Readiness> {
  let cached: { answer: Promise<Readiness>; until: number } | undefined;
  return () => {
    if (cached && cached.until > now()) return cached.answer;
    const entry = { answer: readiness(deps), until: Number.POSITIVE_INFINITY };
    cached = entry;
    const answered = () => {
      entry.until = now() + ttlMs;
    };
    entry.answer.then(answered, answered);
    return entry.answer;
  };
}

/** `GET /readyz`: whether the database answers within the readiness timeout, and the Temporal server within the start budget. */
export async function readiness({ prisma, temporal }: ReadinessDeps): Promise<Readiness> {
  const deadline = Date.now() + startBudgetOf(temporal);
  const [database, temporalServer] = await Promise.all([
    withTimeout(pingDatabase(prisma), READINESS_TIMEOUT_MS).then((): Reachability => 'ok', (): Reachability => 'unreachable'),
    temporal.connection
      .withDeadline(deadline, () => temporal.connection.workflowService.getSystemInfo({}))
      .then((): Reachability => 'ok', (): Reachability => 'unreachable'),
  ]);
  return { ready: database === 'ok' && temporalServer === 'ok', database, temporal: temporalServer };
}
