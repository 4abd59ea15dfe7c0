import { WorkflowExecutionAlreadyStartedError, type Client as TemporalClient } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { NewDelivery } from '../db/events';
import type { Prisma } from '../db/prisma';
import { markHandedOver } from '../db/webhook-deliveries';
import { DELIVER_WEBHOOK_WORKFLOW, webhookDeliveryWorkflowId, type DeliverWebhookWorkflow, type WebhookRetry } from '../workflows/definitions';
import { startWithinBudget } from './availability';
import { searchAttributesOf } from './search-attributes';

export interface HandOverDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  retry: WebhookRetry;
}

/** How a delivery's workflow is started: ids, the event's type and the retry settings, nothing personal. */
export function deliveryWorkflowOptions(taskQueue: string, retry: WebhookRetry, delivery: NewDelivery) {
  return {
    workflowId: webhookDeliveryWorkflowId(delivery.id),
    taskQueue,
    args: [{ deliveryId: delivery.id, retry }] as Parameters<DeliverWebhookWorkflow>,
    // A closed run is never followed by another: the delivery row it ended is no longer pending anyway.
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: searchAttributesOf({ business: delivery.business, clientId: delivery.clientId, eventType: delivery.type }),
    staticSummary: `Webhook delivery ${delivery.id} of a ${delivery.type} event`,
  };
}

/**
 * Starts each delivery's workflow (a running or closed one counts as started) and marks the rows
 * handed over. Returns how many were; throws the first failure after marking the others.
 */
export async function handOverDeliveries(deps: HandOverDeps, deliveries: NewDelivery[]): Promise<number> {
  const results = await Promise.allSettled(
    deliveries.map(async (delivery) => {
      try {
        await startWithinBudget(deps.temporal, () => deps.temporal.workflow.start<DeliverWebhookWorkflow>(DELIVER_WEBHOOK_WORKFLOW, deliveryWorkflowOptions(deps.taskQueue, deps.retry, delivery)));
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      return delivery.id;
    }),
  );
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  await markHandedOver(deps.prisma, started);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  return started.length;
}

/**
 * The hand-over right after a commit: not awaited by the request or activity that committed, never
 * throwing (what it misses, the sweep starts), and drained before the process closes its connections.
 */
export function deliveryOutbox(deps: HandOverDeps, log: (error: unknown) => void) {
  const inFlight = new Set<Promise<unknown>>();
  return {
    handOver(deliveries: NewDelivery[]): void {
      const running = handOverDeliveries(deps, deliveries)
        .catch(log)
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
    },
    async drain(): Promise<void> {
      await Promise.allSettled([...inFlight]);
    },
  };
}
