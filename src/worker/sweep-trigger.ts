import type { Client as TemporalClient } from '@temporalio/client';
import { hasDeliveriesToSweep } from '../db/webhook-deliveries';
import type { Prisma } from '../db/prisma';
import { RECONCILE_EVERY_MS, type HousekeepingInput } from '../domain';
import { askForWebhookSweep, ensureHousekeeping } from '../starters/housekeeping-workflow';

/**
 * The worker's side of the housekeeping run: every `everyMs` it looks for webhook deliveries the sweep
 * must hand over (pending, never handed over, older than the grace) and signals the run to sweep only
 * then; every `ensureEveryMs` it makes sure the run is there (an operator may have terminated it). Several
 * workers may do both at once: the start keeps the running run, and a second signal is one more cheap sweep.
 */
export function keepHousekeeping(deps: {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  input: HousekeepingInput;
  everyMs: number;
  ensureEveryMs?: number;
  onError?: (error: unknown) => void;
}): { stop(): void } {
  let busy = false;
  let ensuredAt = Date.now();
  const look = async () => {
    if (busy) return;
    busy = true;
    try {
      if (await hasDeliveriesToSweep(deps.prisma, new Date(Date.now() - deps.input.sweepGraceMs))) {
        await askForWebhookSweep(deps.temporal, deps.taskQueue, deps.input);
      }
      if (Date.now() - ensuredAt >= (deps.ensureEveryMs ?? RECONCILE_EVERY_MS)) {
        ensuredAt = Date.now();
        await ensureHousekeeping(deps.temporal, deps.taskQueue, deps.input);
      }
    } catch (error) {
      deps.onError?.(error);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void look(), deps.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
