import type { DrainResult, FirstResponseClocks, RoutingQueueInput } from '../../domain';
import { drainRoutingQueue, type DrainDeps } from '../../use-cases/routing/drain';
import { stepClientFirstResponses } from '../../use-cases/routing/first-response-clocks';
import { whileHeartbeating } from '../heartbeat';

export type RoutingActivityDeps = DrainDeps;

export function createRoutingActivities(deps: RoutingActivityDeps) {
  return {
    /** Assigns waiting clients oldest first while someone is eligible (src/use-cases/routing/drain.ts). */
    async drainRoutingQueue(input: RoutingQueueInput): Promise<DrainResult> {
      // A worker killed mid-drain is noticed by its missed heartbeat, within seconds.
      return whileHeartbeating(() => drainRoutingQueue(deps, input));
    },

    /** The client's run: every first-response clock of the client, taken over and stepped; the clocks still running. */
    stepFirstResponses: (input: { clientPk: string }): Promise<FirstResponseClocks> => stepClientFirstResponses(deps, input.clientPk),
  };
}
