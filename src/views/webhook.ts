import type { WebhookDelivery, WebhookSubscription } from '../generated/prisma/client';

const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

/** A subscription as its owner sees it: never its secrets (only the answers that create one show it). */
export const webhookView = (s: WebhookSubscription, now = new Date()) => ({
  _id: s.id,
  url: s.url,
  events: s.events,
  description: s.description,
  previous_secret_expires_at: s.previousSecret && s.previousSecretExpiresAt && s.previousSecretExpiresAt > now ? s.previousSecretExpiresAt.toISOString() : null,
  disabled_at: isoOrNull(s.disabledAt),
  disabled_reason: s.disabledReason,
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
});

/** One delivery of an event to the subscription, and how its attempts went. */
export const deliveryView = (d: WebhookDelivery & { event: { id: string; type: string; createdAt: Date } }) => ({
  _id: d.id,
  event: { id: d.event.id, type: d.event.type, created_at: d.event.createdAt.toISOString() },
  status: d.status,
  attempts: d.attempts,
  last_status_code: d.lastStatusCode,
  last_error: d.lastError,
  next_attempt_at: isoOrNull(d.nextAttemptAt),
  delivered_at: isoOrNull(d.deliveredAt),
  created_at: d.createdAt.toISOString(),
  updated_at: d.updatedAt.toISOString(),
});
