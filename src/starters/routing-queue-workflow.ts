import type { Client as TemporalClient } from '@temporalio/client';
import { ROUTING_QUEUE_WORKFLOW, routingCapacityChangedSignal, routingQueueWorkflowId, type RoutingQueueInput, type RoutingQueueWorkflow } from '../domain';
import { searchAttributesOf } from './search-attributes';

/* The one place a routing policy's queue workflow (`routingQueue`) is started or woken. */

export interface RoutingQueueRef extends RoutingQueueInput {
  /** The policy's id, for the run's summary only (not in the input). */
  policyId: string;
}

/**
 * Starts the policy's queue workflow, or tells the running one to drain now: a client joined the queue
 * or capacity may have freed. Signal-with-start, so a queue whose run had ended gets a new one.
 */
export async function wakeRoutingQueue(temporal: TemporalClient, taskQueue: string, ref: RoutingQueueRef): Promise<void> {
  const input: RoutingQueueInput = { business: ref.business, policyKey: ref.policyKey };
  await temporal.workflow.signalWithStart<RoutingQueueWorkflow, []>(ROUTING_QUEUE_WORKFLOW, {
    workflowId: routingQueueWorkflowId(input),
    taskQueue,
    args: [input],
    signal: routingCapacityChangedSignal,
    signalArgs: [],
    typedSearchAttributes: searchAttributesOf({ business: ref.business }),
    staticSummary: `Routing queue of policy ${ref.policyId}: assigns waiting clients oldest first as capacity frees (length and oldest in the details)`.slice(0, 200),
  });
}
