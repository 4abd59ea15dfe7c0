import { EVENT_PATTERNS } from '../../../domain';
import type { ApiPart } from '../components';
import { badBody, badParameters, closedObject, idParameter, inBusiness, json, listSchema, NO_ROUTE_EXAMPLE, operation, PREFIX, problem, ref, routeResponses } from '../components';
import { EVENT_EXAMPLE } from './events';

const webhookIdParameter = idParameter('The webhook\'s id. One of another user or business is the same 404 as a missing one.', '3d4c1b2a-5e6f-4a7b-8c9d-0e1f2a3b4c5d');
const webhookNotFound = { webhookNotFound: 'Webhook not found', ...NO_ROUTE_EXAMPLE };
const dateOrNull = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });

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

const webhookProperties = {
  _id: { type: 'string', format: 'uuid' },
  url: { type: 'string', format: 'uri', description: 'Where events are POSTed.' },
  events: { type: 'array', items: { enum: [...EVENT_PATTERNS] }, minItems: 1, description: 'The types it receives; `*` is every type.' },
  description: { type: ['string', 'null'] },
  previous_secret_expires_at: dateOrNull('Until when the secret a rotation replaced still signs beside the current one; null when none does.'),
  disabled_at: dateOrNull('When deliveries stopped because the receiver answered 410 Gone; null while active.'),
  disabled_reason: { type: ['string', 'null'], examples: ['The receiver answered 410 Gone'] },
  created_at: ref('schemas', 'DateTime'),
  updated_at: ref('schemas', 'DateTime'),
};
const webhookRequired = Object.keys(webhookProperties);

export const webhooksApi: ApiPart = {
  tags: [
    {
      name: 'Webhooks',
      description:
        'Subscriptions that receive events by HTTP POST, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), ' +
        'at least once, retried with backoff for up to 3 days. See `docs/events.md` for what a receiver may assume and how to verify the signature.',
    },
  ],
  schemas: {
    NewWebhook: {
      type: 'object',
      required: ['url'],
      description: 'A field not described here is a 400 `Unknown field: {name}`.',
      properties: {
        url: { type: 'string', maxLength: 2048, description: 'An http or https URL. Redirects are not followed.', examples: [webhook.url] },
        events: {
          type: ['array', 'null'],
          items: { enum: [...EVENT_PATTERNS] },
          minItems: 1,
          description: 'Event types, `assignment.*`, `message.*`, `rotation.*`, `client.*` or `*`. Absent or null: every type.',
          examples: [['assignment.*', 'message.sent']],
        },
        description: { type: ['string', 'null'], maxLength: 500 },
      },
    },
    Webhook: { type: 'object', required: webhookRequired, additionalProperties: false, properties: webhookProperties },
    WebhookWithSecret: closedObject([...webhookRequired, 'secret'], {
      ...webhookProperties,
      secret: {
        type: 'string',
        pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
        description: 'The signing secret, in Standard Webhooks form. Shown in this answer only: keep it.',
      },
    }),
    WebhookList: listSchema('webhooks', ref('schemas', 'Webhook'), 'Oldest first.'),
    WebhookDelivery: closedObject(['_id', 'event', 'status', 'attempts', 'last_status_code', 'last_error', 'next_attempt_at', 'delivered_at', 'created_at', 'updated_at'], {
      _id: { type: 'string', format: 'uuid' },
      event: {
        type: 'object',
        required: ['id', 'type', 'created_at'],
        additionalProperties: false,
        properties: { id: { type: 'string', format: 'uuid' }, type: { type: 'string' }, created_at: ref('schemas', 'DateTime') },
      },
      status: {
        enum: ['pending', 'delivered', 'failed', 'abandoned'],
        description: '`failed`: the receiver refused it (a 4xx other than 408 and 429, or a 3xx). `abandoned`: retries ran out, or the webhook was disabled, or an operator canceled it.',
      },
      attempts: { type: 'integer', minimum: 0 },
      last_status_code: { type: ['integer', 'null'], description: 'The receiver\'s last HTTP status; null when it could not be reached.' },
      last_error: { type: ['string', 'null'], description: 'What went wrong, in the service\'s words (never the receiver\'s body).', examples: ['Receiver answered 503 Service Unavailable'] },
      next_attempt_at: dateOrNull('When the next attempt is due, while pending after a failed one.'),
      delivered_at: dateOrNull('When the receiver answered 2xx.'),
      created_at: ref('schemas', 'DateTime'),
      updated_at: ref('schemas', 'DateTime'),
    }),
    WebhookDeliveryList: listSchema('deliveries', ref('schemas', 'WebhookDelivery'), 'Newest first.'),
  },
  paths: {
    [`${PREFIX}/webhooks`]: inBusiness({
      post: operation('createWebhook', 'Webhooks', 'Subscribe a URL to events', {
        description: 'Every event of the caller in this business whose type the subscription names is POSTed to `url` from now on. At most 20 per user, across its businesses.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'NewWebhook'), example: { url: webhook.url, events: webhook.events, description: webhook.description } } } },
        responses: routeResponses(true, {
          201: json('Created; the answer carries the secret, once.', ref('schemas', 'WebhookWithSecret'), {
            headers: { Location: ref('headers', 'Location') },
            example: { ...webhook, secret },
          }),
          400: badBody('The body is invalid; the detail names the field. Nothing was created.', {
            missingUrl: 'Invalid url: must be an http or https URL',
            longUrl: 'Invalid url: must be at most 2048 characters',
            badEvents: 'Invalid events: must be an array of event types (assignment.created, assignment.updated, assignment.expired, assignment.unassigned, message.scheduled, message.sending, message.sent, message.failed, message.canceled, rotation.stopped, assignment.*, message.*, rotation.*, *)',
            unknownEvent: 'Invalid events.0: must be one of assignment.created, assignment.updated, assignment.expired, assignment.unassigned, message.scheduled, message.sending, message.sent, message.failed, message.canceled, rotation.stopped, assignment.*, message.*, rotation.*, *',
            noEvents: 'Invalid events: must name at least one event type, or be left out for all of them',
            badDescription: 'Invalid description: must be at most 500 characters',
          }),
          409: problem(409, 'The caller already has 20 webhooks, counted across its businesses.', { tooMany: 'At most 20 webhooks per user, across its businesses: delete one first' }),
        }),
      }),
      get: operation('listWebhooks', 'Webhooks', 'List the caller\'s webhooks', {
        responses: routeResponses(false, {
          200: json('The caller\'s webhooks in this business, without their secrets.', ref('schemas', 'WebhookList'), { example: { webhooks: [webhook] } }),
        }),
      }),
    }),
    [`${PREFIX}/webhooks/{_id}`]: inBusiness({
      get: operation('getWebhook', 'Webhooks', 'Read a webhook', {
        responses: routeResponses(false, {
          200: json('The webhook, without its secret.', ref('schemas', 'Webhook'), { example: webhook }),
          404: problem(404, 'No such webhook of the caller in this business.', webhookNotFound),
        }),
      }),
      delete: operation('deleteWebhook', 'Webhooks', 'Delete a webhook', {
        description: 'No event is delivered to it any more, including those still being retried; its delivery records go with it.',
        responses: routeResponses(true, { 204: { description: 'Deleted.' }, 404: problem(404, 'No such webhook of the caller in this business.', webhookNotFound) }),
      }),
    }, webhookIdParameter),
    [`${PREFIX}/webhooks/{_id}/rotate-secret`]: inBusiness({
      post: operation('rotateWebhookSecret', 'Webhooks', 'Replace a webhook\'s secret', {
        description:
          'A new secret signs from now on; the one it replaces keeps signing beside it for 24 hours (`webhook-signature` carries both), ' +
          'so receivers can switch without losing an event. Rotating again within the 24 hours drops the older one. No body is needed.',
        responses: routeResponses(true, {
          200: json('The webhook with its new secret, shown once.', ref('schemas', 'WebhookWithSecret'), {
            example: { ...webhook, secret, previous_secret_expires_at: '2026-11-23T05:14:13.462Z', updated_at: '2026-11-22T05:14:13.462Z' },
          }),
          404: problem(404, 'No such webhook of the caller in this business.', webhookNotFound),
        }),
      }),
    }, webhookIdParameter),
    [`${PREFIX}/webhooks/{_id}/deliveries`]: inBusiness({
      get: operation('listWebhookDeliveries', 'Webhooks', 'Recent deliveries of a webhook', {
        parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } }],
        responses: routeResponses(false, {
          200: json('The most recent deliveries and how their attempts went.', ref('schemas', 'WebhookDeliveryList'), {
            example: {
              deliveries: [
                {
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
                },
              ],
            },
          }),
          400: badParameters('`limit` is invalid, or the path is not validly percent-encoded.', { invalidLimit: 'Invalid limit: must be a whole number from 1 to 100' }),
          404: problem(404, 'No such webhook of the caller in this business.', webhookNotFound),
        }),
      }),
    }, webhookIdParameter),
  },
  webhooks: {
    event: {
      post: operation('receiveEvent', 'Webhooks', 'An event, POSTed to each subscribed URL', {
        description:
          'Signed per Standard Webhooks: `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` under the ' +
          'secret\'s bytes (the base64 after `whsec_`); during a rotation it carries two space-separated signatures. Answer 2xx within 10 seconds. ' +
          'Network errors, timeouts, 408, 429 and 5xx are retried with backoff for up to 3 days (after `Retry-After` when you send one); ' +
          '410 disables the webhook; any other answer is final for that event. The same event can arrive more than once: deduplicate by `webhook-id`.',
        security: [],
        parameters: [
          { name: 'webhook-id', in: 'header', required: true, description: 'The event\'s id: the same on every retry.', schema: { type: 'string', format: 'uuid' } },
          { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds when this attempt was signed.', schema: { type: 'string', pattern: '^[0-9]+$' } },
          { name: 'webhook-signature', in: 'header', required: true, schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'Event'), example: EVENT_EXAMPLE } } },
        responses: {
          '2XX': { description: 'Received.' },
          410: { description: 'Gone: the webhook is disabled and receives nothing more.' },
          default: { description: 'Retried if 408, 429 or 5xx; otherwise final for this event.' },
        },
      }),
    },
  },
};
