import { activityInfo } from '@temporalio/activity';
import type { DrainResult, FirstResponseClocks, FirstResponseInput, FirstResponseStep, RoutingQueueInput } from '../../domain';
import { drainRoutingQueue, type DrainDeps } from '../../use-cases/routing/drain';
import { checkFirstResponseOfRun, stepClientFirstResponses } from '../../use-cases/routing/first-response-clocks';
import { whileHeartbeating } from '../heartbeat';

export type RoutingActivityDeps = DrainDeps;

export function createRoutingActivities(deps: RoutingActivityDeps) {
  return {
    /** Assigns waiting clients oldest first while someone is eligible (src/use-cases/routing/drain.ts). */
    async drainRoutingQueue(input: RoutingQueueInput): Promise<DrainResult> {
      // A worker killed mid-drain is noticed by its missed heartbeat, within seconds.
      return whileHeartbeating(() => drainRoutingQueue(deps, input));
    },

    /** An older build's per-decision run (`routingFirstResponse`): looks at its decision's clock while that run still holds it. */
    checkFirstResponse: (input: FirstResponseInput): Promise<FirstResponseStep> => checkFirstResponseOfRun(deps, input.decisionId, () => activityInfo().workflowExecution?.workflowId),

    /** The client's run: every first-response clock of the client, taken over and stepped; the clocks still running. */
    stepFirstResponses: (input: { clientPk: string }): Promise<FirstResponseClocks> => stepClientFirstResponses(deps, input.clientPk),
  };
}
