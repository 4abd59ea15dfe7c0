import { Context, heartbeat } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client as TemporalClient } from '@temporalio/client';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../../config/index';
import { outboundNetwork, publicOnlyNetwork, type OutboundNetwork } from '../../net/outbound';
import { UnreadableSecret, type SecretBox } from '../../secrets/secret-box';
import type { DatabaseDeps } from '../../use-cases/database';
import { abandonDelivery, recordWebhookAnswer, signingSecretsOf, startWebhookAttempt, sweepDeliveries } from '../../use-cases/webhooks/deliveries';
import {
  DEFAULT_WEBHOOK_RETRY,
  WEBHOOK_BACKOFF_COEFFICIENT,
  type DeliverWebhookInput,
  type DeliverWebhookResult,
  type SweepWebhooksInput,
  type SweepWebhooksResult,
  type WebhookRetry,
} from '../../domain';
import { postWebhook } from './post';
import { standardWebhookHeaders } from './signature';

export interface WebhookActivityDeps extends DatabaseDeps {
  temporal: TemporalClient;
  taskQueue: string;
  /** Opens the subscriptions' sealed secrets (SECRETS_KEY). */
  secrets: SecretBox;
  /** The WEBHOOK_* settings; the defaults without them. */
  webhooks?: WebhookSettings;
  /** What deliveries connect through; unset: the guard, unless `webhooks.allowPrivateUrls`. */
  webhookNetwork?: OutboundNetwork;
}

/** The body of every attempt of an event: the same bytes each time, built from the stored event. */
export function eventBody(event: { id: string; type: string; createdAt: Date; business: string; data: unknown }): string {
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt.toISOString(), business: event.business, data: event.data });
}

/** When the retry policy's next attempt is due after attempt `attempt` failed, as far as the worker can tell. */
function nextAttemptAt(retry: WebhookRetry, attempt: number, retryAfterMs?: number): Date {
  const backoff = Math.min(retry.initialIntervalMs * WEBHOOK_BACKOFF_COEFFICIENT ** (attempt - 1), retry.maximumIntervalMs);
  return new Date(Date.now() + (retryAfterMs ?? backoff));
}

/**
 * The subscription's signing secrets in the clear. One this process cannot open (its key was taken out
 * of SECRETS_KEY too early) fails the attempt, retried like a receiver's outage, so that putting the key
 * back lets the delivery through; the failure names the key id, never the secret.
 */
function secretsToSign(subscription: Parameters<typeof signingSecretsOf>[0], secrets: SecretBox): string[] {
  try {
    return signingSecretsOf(subscription, secrets);
  } catch (error) {
    if (!(error instanceof UnreadableSecret)) throw error;
    throw ApplicationFailure.create({ type: 'WebhookSecretUnreadable', message: `The subscription's secret cannot be opened: ${error.message}` });
  }
}

export function createWebhookActivities({ prisma, temporal, taskQueue, secrets, webhooks = DEFAULT_WEBHOOK_SETTINGS, webhookNetwork }: WebhookActivityDeps) {
  const network = webhookNetwork ?? (webhooks.allowPrivateUrls ? outboundNetwork({ publicOnly: false }) : publicOnlyNetwork());
  return {
    /**
     * One attempt of one delivery: reads the event and the subscription, signs (Standard Webhooks, with
     * the previous secret too during a rotation), POSTs, and records the answer. 2xx, a refusal (4xx) and
     * 410 end it; anything transient is thrown to be retried, after the receiver's Retry-After if it
     * gave one. Only ids and our own texts reach Temporal.
     */
    async deliverWebhookEvent(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
      const attempt = await startWebhookAttempt(prisma, input.deliveryId);
      // The subscription was deleted, and its deliveries with it.
      if (attempt.state === 'missing') return { outcome: 'abandoned' };
      if (attempt.state === 'done') return { outcome: attempt.status === 'pending' ? 'abandoned' : attempt.status };
      const { delivery } = attempt;
      const { event, subscription } = delivery;
      if (subscription.disabledAt) {
        await abandonDelivery(prisma, delivery.id, 'The subscription is disabled');
        return { outcome: 'abandoned' };
      }
      const body = eventBody(event);
      const headers = standardWebhookHeaders(secretsToSign(subscription, secrets), event.id, Math.floor(Date.now() / 1000), body);
      const answer = await postWebhook(subscription.url, headers, body, webhooks.timeoutMs, { network });
      switch (answer.kind) {
        case 'delivered':
          await recordWebhookAnswer(prisma, delivery.id, answer);
          return { outcome: 'delivered' };
        case 'refused':
          await recordWebhookAnswer(prisma, delivery.id, answer);
          return { outcome: 'failed' };
        case 'transient': {
          const retry = input.retry ?? DEFAULT_WEBHOOK_RETRY;
          const next = nextAttemptAt(retry, Context.current().info.attempt, answer.retryAfterMs);
          await recordWebhookAnswer(prisma, delivery.id, { kind: 'transient', statusCode: answer.statusCode, error: answer.error, nextAttemptAt: next });
          throw ApplicationFailure.create({
            type: 'WebhookNotDelivered',
            message: answer.error,
            ...(answer.retryAfterMs !== undefined && { nextRetryDelay: answer.retryAfterMs, details: [{ retryAfterMs: answer.retryAfterMs }] }),
          });
        }
      }
    },

    /** Retries ran out, or an operator canceled the delivery's workflow. */
    abandonWebhookDelivery: (input: { deliveryId: string; reason: string }): Promise<void> => abandonDelivery(prisma, input.deliveryId, input.reason),

    /**
     * The sweep: starts the workflow of every pending delivery older than the grace period that was
     * never handed over (its process died between the commit and the start), and abandons deliveries
     * still pending long after any retry could have ended, and deletes events past their retention.
     */
    handOverPendingDeliveries: ({ graceMs = webhooks.sweepGraceMs }: SweepWebhooksInput = {}): Promise<SweepWebhooksResult> =>
      sweepDeliveries({ prisma, temporal, taskQueue }, { graceMs, retry: webhooks.retry, eventRetentionMs: webhooks.eventRetentionMs }, (result) => heartbeat(result)),
  };
}
