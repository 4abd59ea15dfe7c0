import { WorkflowExecutionAlreadyStartedError, type Client as TemporalClient } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import type { NewDelivery } from '../db/events';
import type { Prisma } from '../db/prisma';
import { markHandedOver } from '../db/webhook-deliveries';
import {
  DELIVER_WEBHOOK_WORKFLOW,
  webhookDeliveryWorkflowId,
  type DeliverWebhookWorkflow,
  type WebhookRetry,
  taskQueuesOf,
} from '../domain';
import { searchAttributesOf } from './search-attributes';

/* The one place a webhook delivery's workflow (`deliverWebhook`) is started. */

export interface HandOverDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  retry: WebhookRetry;
}

/** How long one start may take before the delivery is left to the sweep. */
const START_DEADLINE_MS = 10_000;

/**
 * How a delivery's workflow is started: ids, the event's type and the retry settings, nothing personal;
 * on the webhooks queue (see taskQueuesOf), so a slow receiver never holds the base queue's slots.
 */
export function deliveryWorkflowOptions(baseTaskQueue: string, retry: WebhookRetry, delivery: NewDelivery) {
  return {
    workflowId: webhookDeliveryWorkflowId(delivery.id),
    taskQueue: taskQueuesOf(baseTaskQueue).webhooks,
    args: [{ deliveryId: delivery.id, retry }] as Parameters<DeliverWebhookWorkflow>,
    // A closed run is never followed by another: the delivery row it ended is no longer pending anyway.
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: searchAttributesOf({ business: delivery.business, clientId: delivery.clientId, eventType: delivery.type }),
    staticSummary: `Webhook delivery ${delivery.id} of a ${delivery.type} event`,
  };
}

/**
 * Starts one delivery's workflow (a running or closed one counts as started). Not through the API's
 * start budget: a slow hand-over must not make the API believe Temporal is down.
 */
async function startDelivery(deps: HandOverDeps, delivery: NewDelivery): Promise<void> {
  try {
    await deps.temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start<DeliverWebhookWorkflow>(DELIVER_WEBHOOK_WORKFLOW, deliveryWorkflowOptions(deps.taskQueue, deps.retry, delivery)),
    );
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * Starts each delivery's workflow, `concurrency` at a time, and marks the rows handed over. Returns how
 * many were; throws the first failure after marking the others.
 */
export async function handOverDeliveries(deps: HandOverDeps, deliveries: NewDelivery[], concurrency = 16): Promise<number> {
  const started: string[] = [];
  let failure: unknown;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, deliveries.length) }, async () => {
      while (next < deliveries.length) {
        const delivery = deliveries[next++];
        try {
          await startDelivery(deps, delivery);
          started.push(delivery.id);
        } catch (error) {
          failure ??= error;
        }
      }
    }),
  );
  await markHandedOver(deps.prisma, started);
  if (failure) throw failure;
  return started.length;
}
