import type { Client as TemporalClient } from '@temporalio/client';
import { hasDeliveriesToSweep } from '../db/webhook-deliveries';
import type { Prisma } from '../db/prisma';
import { triggerWebhookSweep } from '../starters/sweep-webhook-deliveries-schedule';

/**
 * Looks every `everyMs` for webhook deliveries the sweep must hand over (pending, never handed over,
 * older than `graceMs`) and triggers the sweep's Schedule only then: the UI's list is not filled with
 * sweeps that found nothing. Several workers may trigger at once; the Schedule skips an overlapping run.
 */
export function watchForSweepWork(deps: {
  prisma: Prisma;
  temporal: TemporalClient;
  scheduleId: string;
  everyMs: number;
  graceMs: number;
  onError?: (error: unknown) => void;
}): { stop(): void } {
  let busy = false;
  const look = async () => {
    if (busy) return;
    busy = true;
    try {
      if (await hasDeliveriesToSweep(deps.prisma, new Date(Date.now() - deps.graceMs))) {
        await triggerWebhookSweep(deps.temporal, deps.scheduleId);
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
