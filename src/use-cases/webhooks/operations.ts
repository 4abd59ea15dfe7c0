import { EVENT_EXAMPLE } from '../events/operations';
import { badBody, badParameters, notFound, operations } from '../input/operation-docs';
import { NewWebhook, Webhook, WebhookDeliveryList, WebhookList, WebhookWithSecret } from './contract';

/* What the document says of the webhooks' routes (src/use-cases/input/operation-docs.ts). */

export const WEBHOOKS_TAG =
  'Subscriptions that receive events by HTTP POST, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), ' +
  'at least once, retried with backoff for up to 3 days. See `docs/events.md` for what a receiver may assume and how to verify the signature.';

const webhook = {
  _id: '3d4c1b2a-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  url: 'https://crm.example.com/hooks/crm-messaging',
  events: ['assignment.*', 'message.sent'],
  description: 'CRM sync',
  previous_secret_expires_at: null,
  disabled_at: null,
  disabled_reason: null,
  created_at: '2026-11-22T05:14:13.462Z',
  updated_at: '2026-11-22T05:14:13.462Z',
};
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4EG5jbhlfTo=';
const WEBHOOK_NOT_FOUND = notFound('No such webhook of the caller in this business.', { webhookNotFound: 'Webhook not found' });
const delivery = {
  _id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  event: { id: EVENT_EXAMPLE.id, type: EVENT_EXAMPLE.type, created_at: EVENT_EXAMPLE.created_at },
  status: 'delivered',
  attempts: 2,
  last_status_code: 200,
  last_error: null,
  next_attempt_at: null,
  delivered_at: '2030-01-01T00:00:05.120Z',
  created_at: '2030-01-01T00:00:00.012Z',
  updated_at: '2030-01-01T00:00:05.120Z',
};

export const WEBHOOK_OPERATIONS = operations({
  createWebhook: {
    summary: 'Subscribe a URL to events',
    description: 'Every event of the caller in this business whose type the subscription names is POSTed to `url` from now on. At most 20 per user, across its businesses.',
    body: { schema: NewWebhook, example: { url: webhook.url, events: webhook.events, description: webhook.description } },
    responses: {
      201: { description: 'Created; the answer carries the secret, once.', schema: WebhookWithSecret, headers: ['Location'], example: { ...webhook, secret } },
      400: badBody('The body is invalid; the detail names the field. Nothing was created.', {
        missingUrl: 'Invalid url: must be an http or https URL',
        longUrl: 'Invalid url: must be at most 2048 characters',
        badEvents: 'Invalid events: must be an array of event types (assignment.created, assignment.updated, assignment.expired, assignment.unassigned, message.scheduled, message.sending, message.sent, message.failed, message.canceled, rotation.stopped, assignment.*, message.*, rotation.*, *)',
        unknownEvent: 'Invalid events.0: must be one of assignment.created, assignment.updated, assignment.expired, assignment.unassigned, message.scheduled, message.sending, message.sent, message.failed, message.canceled, rotation.stopped, assignment.*, message.*, rotation.*, *',
        noEvents: 'Invalid events: must name at least one event type, or be left out for all of them',
        badDescription: 'Invalid description: must be at most 500 characters',
      }),
      409: { description: 'The caller already has 20 webhooks, counted across its businesses.', examples: { tooMany: 'At most 20 webhooks per user, across its businesses: delete one first' } },
    },
  },
  listWebhooks: {
    summary: 'List the caller\'s webhooks',
    responses: { 200: { description: 'The caller\'s webhooks in this business, without their secrets.', schema: WebhookList, example: { webhooks: [webhook] } } },
  },
  getWebhook: { summary: 'Read a webhook', responses: { 200: { description: 'The webhook, without its secret.', schema: Webhook, example: webhook }, 404: WEBHOOK_NOT_FOUND } },
  deleteWebhook: {
    summary: 'Delete a webhook',
    description: 'No event is delivered to it any more, including those still being retried; its delivery records go with it.',
    responses: { 204: { description: 'Deleted.' }, 404: WEBHOOK_NOT_FOUND },
  },
  rotateWebhookSecret: {
    summary: 'Replace a webhook\'s secret',
    description:
      'A new secret signs from now on; the one it replaces keeps signing beside it for 24 hours (`webhook-signature` carries both), ' +
      'so receivers can switch without losing an event. Rotating again within the 24 hours drops the older one. No body is needed.',
    responses: {
      200: {
        description: 'The webhook with its new secret, shown once.',
        schema: WebhookWithSecret,
        example: { ...webhook, secret, previous_secret_expires_at: '2026-11-23T05:14:13.462Z', updated_at: '2026-11-22T05:14:13.462Z' },
      },
      404: WEBHOOK_NOT_FOUND,
    },
  },
  listWebhookDeliveries: {
    summary: 'Recent deliveries of a webhook',
    responses: {
      200: { description: 'The most recent deliveries and how their attempts went.', schema: WebhookDeliveryList, example: { deliveries: [delivery] } },
      400: badParameters('`limit` is invalid, or the path is not validly percent-encoded.', { invalidLimit: 'Invalid limit: must be a whole number from 1 to 100' }),
      404: WEBHOOK_NOT_FOUND,
    },
  },
});
