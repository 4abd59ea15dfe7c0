import type { Client as TemporalClient } from '@temporalio/client';
import { ROUTING_QUEUE_WORKFLOW, routingCapacityChangedSignal, routingQueueWorkflowId, type RoutingQueueInput, type RoutingQueueWorkflow } from '../domain';
import { policiesWithWaiting } from '../db/routing-decisions';
import type { Prisma } from '../db/prisma';
import type { Scope } from '../db/scope';
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

export interface WakeDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  log?: (error: unknown) => void;
}

/** Wakes one policy's queue workflow. Best effort: the row is the truth, and a waiting queue re-checks by itself every minute. */
export async function wakePolicyQueue(deps: WakeDeps, policy: { business: string; pk: string; id: string }): Promise<void> {
  try {
    await wakeRoutingQueue(deps.temporal, deps.taskQueue, { business: policy.business, policyKey: policy.pk, policyId: policy.id });
  } catch (error) {
    deps.log?.(error);
  }
}

/** Capacity of the owner's agents may have freed: every policy of the owner with clients waiting drains now. */
export async function wakeWaitingQueues(deps: WakeDeps, scope: Scope): Promise<void> {
  for (const policy of await policiesWithWaiting(deps.prisma, scope)) await wakePolicyQueue(deps, policy);
}
