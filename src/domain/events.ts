/*
 * Events out: the event types, and the delivery workflow's name, id, input and result. Ids and
 * retry settings only: the event's data and the receiver's URL stay in PostgreSQL.
 */

export const ASSIGNMENT_EVENT_TYPES = ['assignment.created', 'assignment.updated', 'assignment.expired', 'assignment.unassigned'] as const;
export const MESSAGE_EVENT_TYPES = ['message.scheduled', 'message.sending', 'message.sent', 'message.delivered', 'message.read', 'message.undelivered', 'message.failed', 'message.canceled', 'message.suppressed', 'message.received'] as const;
export const ROTATION_EVENT_TYPES = ['rotation.stopped'] as const;
export const ROUTING_EVENT_TYPES = ['routing.assigned', 'routing.queued', 'routing.reassigned', 'routing.escalated', 'routing.no_eligible_agent'] as const;
export const CLIENT_EVENT_TYPES = ['client.deleted'] as const;
export const CRM_OWNER_EVENT_TYPES = ['crm.owner_conflict', 'crm.owner_sync_failed'] as const;
export const CONVERSATION_EVENT_TYPES = ['conversation.opened', 'conversation.snoozed', 'conversation.reopened', 'conversation.closed', 'conversation.overdue', 'conversation.note_added'] as const;
/** A business's number: its A2P registration changed, as a refresh read it from the carrier (docs/events.md). */
export const NUMBER_EVENT_TYPES = ['number.registration_changed'] as const;
export const EVENT_TYPES = [...ASSIGNMENT_EVENT_TYPES, ...MESSAGE_EVENT_TYPES, ...ROTATION_EVENT_TYPES, ...ROUTING_EVENT_TYPES, ...CLIENT_EVENT_TYPES, ...CRM_OWNER_EVENT_TYPES, ...CONVERSATION_EVENT_TYPES, ...NUMBER_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What a subscription or the feed's `type` may name: a type, every type of a resource, or everything. */
export const EVENT_PATTERNS = [...EVENT_TYPES, 'assignment.*', 'message.*', 'rotation.*', 'routing.*', 'client.*', 'crm.*', 'conversation.*', 'number.*', '*'] as const;
export type EventPattern = (typeof EVENT_PATTERNS)[number];

/**
 * Who or what made the change: `api` a request of the owner (HTTP or Nexus) and the message's own
 * sending that followed it, `expiry` an assignment's `dt_until`, `operator` a cancellation in the
 * Temporal UI, `rule` a business-rule workflow (a CRM lead's workflow among them), `carrier` a carrier's receipt or a text the client sent,
 * `client_deleted` / `agent_deleted` the owner deleting the client (its erasure) or an agent, which
 * ends what they were part of, `routing` lead routing ending an assignment whose first response was missed,
 * `snooze` a conversation's snooze ending, `reply_clock` a conversation's answer coming due.
 */
export const EVENT_REASONS = ['api', 'expiry', 'operator', 'rule', 'carrier', 'client_deleted', 'agent_deleted', 'routing', 'snooze', 'reply_clock'] as const;
export type EventReason = (typeof EVENT_REASONS)[number];

/** How long and how often a delivery is retried; the defaults are the service's, tests shorten them. */
export interface WebhookRetry {
  initialIntervalMs: number;
  maximumIntervalMs: number;
  /** After this long since its first attempt the delivery is abandoned. */
  giveUpAfterMs: number;
}

export const DEFAULT_WEBHOOK_RETRY: WebhookRetry = {
  initialIntervalMs: 5_000,
  maximumIntervalMs: 60 * 60 * 1000,
  giveUpAfterMs: 3 * 24 * 60 * 60 * 1000,
};
/** Each wait is this many times the one before, up to `maximumIntervalMs`. */
export const WEBHOOK_BACKOFF_COEFFICIENT = 2;

export interface DeliverWebhookInput {
  deliveryId: string;
  retry?: WebhookRetry;
}

export type WebhookDeliveryOutcome = 'delivered' | 'failed' | 'abandoned';

export interface DeliverWebhookResult {
  outcome: WebhookDeliveryOutcome;
}

/** Before the base64 of a webhook secret, as Standard Webhooks writes it (`whsec_…`). */
export const SECRET_PREFIX = 'whsec_';

export const DELIVER_WEBHOOK_WORKFLOW = 'deliverWebhook';
export type DeliverWebhookWorkflow = (input: DeliverWebhookInput) => Promise<DeliverWebhookResult>;

/** One run per delivery row, ever: the id is not reused, so a repeated hand-over never delivers twice. */
export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook/${deliveryId}`;

export interface SweepWebhooksInput {
  /** Deliveries younger than this are left to the hand-over that follows their commit. */
  graceMs?: number;
}

export interface SweepWebhooksResult {
  handedOver: number;
  abandoned: number;
  /** Events past EVENT_RETENTION_DAYS deleted by this sweep. */
  expiredEvents?: number;
}

export const SWEEP_WEBHOOKS_WORKFLOW = 'sweepWebhookDeliveries';
/** The Schedule that ran the sweep before the housekeeping run: removed at a worker's start. */
export const webhookSweepScheduleId = (taskQueue: string) => `webhook-sweep/${taskQueue}`;
