import type { NewDelivery } from '../db/prisma';
import { refuseWhileKnownDown } from './availability';
import { handOverDeliveries, type HandOverDeps } from './deliver-webhook-workflow';

/**
 * The hand-over right after a commit: not awaited by the request or activity that committed, never
 * throwing, and bounded — at most `maxInFlight` starts at once and `maxQueued` waiting; what it skips
 * (a full queue, Temporal known to be down, a start that failed) stays pending and the sweep starts
 * it. Drained before the process closes its connections.
 */
export function deliveryOutbox(deps: HandOverDeps, log: (error: unknown) => void, limits = { maxInFlight: 8, maxQueued: 2000 }) {
  const queue: NewDelivery[] = [];
  let running = 0;
  let idle: (() => void)[] = [];
  const settle = () => {
    if (running > 0 || queue.length > 0) return;
    for (const resolve of idle) resolve();
    idle = [];
  };
  const pump = () => {
    while (running < limits.maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, 1);
      running++;
      handOverDeliveries(deps, batch, 1)
        .catch(log)
        .finally(() => {
          running--;
          pump();
          settle();
        });
    }
  };
  return {
    handOver(deliveries: NewDelivery[]): void {
      try {
        refuseWhileKnownDown(deps.temporal);
      } catch {
        return;
      }
      queue.push(...deliveries.slice(0, Math.max(limits.maxQueued - queue.length, 0)));
      pump();
    },
    drain(): Promise<void> {
      return new Promise((resolve) => {
        idle.push(resolve);
        settle();
      });
    },
  };
}
