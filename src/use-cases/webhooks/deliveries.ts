import type { Client as TemporalClient } from '@temporalio/client';
import { deleteEventsCreatedBefore } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import {
  abandonStaleDeliveries,
  abandonWebhookDelivery,
  countWebhookAttempt,
  deliveriesNotHandedOver,
  markWebhookDelivered,
  markWebhookRefused,
  recordWebhookRetry,
} from '../../db/webhook-deliveries';
import { signingSecrets } from '../../db/webhook-subscriptions';
import type { WebhookSettings } from '../../config/index';
import type { SweepWebhooksResult } from '../../domain';
import type { SecretBox } from '../../secrets/secret-box';
import { handOverDeliveries } from '../../starters/deliver-webhook-workflow';

/* A webhook delivery's attempts, and the sweep that hands over what a dead process left and forgets old events. */

/** Counts one attempt of the delivery: the delivery with its event and subscription, or why there is none. */
export const startWebhookAttempt = (prisma: Prisma, deliveryId: string) => countWebhookAttempt(prisma, deliveryId);

/** The subscription's signing secrets in the clear (the previous one too during a rotation). */
export const signingSecretsOf = (subscription: Parameters<typeof signingSecrets>[0], secrets: SecretBox): string[] => signingSecrets(subscription, secrets);

export const abandonDelivery = (prisma: Prisma, deliveryId: string, reason: string): Promise<void> => abandonWebhookDelivery(prisma, deliveryId, reason);

/** What the receiver answered an attempt, as the delivery's row keeps it. */
export type WebhookAnswer =
  | { kind: 'delivered'; statusCode: number }
  | { kind: 'refused'; statusCode: number | null; error: string; gone: boolean }
  | { kind: 'transient'; statusCode: number | null; error: string; nextAttemptAt: Date };

export async function recordWebhookAnswer(prisma: Prisma, deliveryId: string, answer: WebhookAnswer): Promise<void> {
  switch (answer.kind) {
    case 'delivered':
      return markWebhookDelivered(prisma, deliveryId, answer.statusCode);
    case 'refused':
      return markWebhookRefused(prisma, deliveryId, answer);
    case 'transient':
      return recordWebhookRetry(prisma, deliveryId, { statusCode: answer.statusCode, error: answer.error, nextAttemptAt: answer.nextAttemptAt });
  }
}

export interface SweepDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

const SWEEP_PAGE = 200;

/**
 * The sweep: starts the workflow of every pending delivery older than `graceMs` that was never handed
 * over (its process died between the commit and the start), abandons deliveries still pending long after
 * any retry could have ended, and deletes events past their retention. `progress` is told after each page.
 */
export async function sweepDeliveries(
  deps: SweepDeps,
  settings: Pick<WebhookSettings, 'retry' | 'eventRetentionMs'> & { graceMs: number },
  progress: (result: SweepWebhooksResult) => void,
): Promise<SweepWebhooksResult> {
  const { prisma } = deps;
  const now = Date.now();
  const result: SweepWebhooksResult = { handedOver: 0, abandoned: 0 };
  result.abandoned = await abandonStaleDeliveries(prisma, new Date(now - settings.retry.giveUpAfterMs - 24 * 60 * 60 * 1000));
  for (;;) {
    const page = await deliveriesNotHandedOver(prisma, new Date(now - settings.graceMs), SWEEP_PAGE);
    if (page.length === 0) break;
    result.handedOver += await handOverDeliveries({ ...deps, retry: settings.retry }, page);
    progress(result);
    if (page.length < SWEEP_PAGE) break;
  }
  result.expiredEvents = 0;
  for (let deleted = SWEEP_PAGE; deleted === SWEEP_PAGE; ) {
    deleted = await deleteEventsCreatedBefore(prisma, new Date(now - settings.eventRetentionMs), SWEEP_PAGE);
    result.expiredEvents += deleted;
    progress(result);
  }
  return result;
}
