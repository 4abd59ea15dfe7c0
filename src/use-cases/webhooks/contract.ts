import { z } from 'zod';
import { EVENT_PATTERNS } from '../../domain';
import { dateOrNull, DateTime, uuid } from '../input/contract';

/*
 * The contract of webhooks: the body of `POST /webhooks` (read by parseBody, so its texts are these
 * schemas'; request.ts adds the public-address check) and the views of a webhook and its deliveries.
 * The OpenAPI document is generated from these schemas.
 */

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;
const PATTERN_LIST = EVENT_PATTERNS.join(', ');

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const NewWebhook = z
  .object({
    url: z
      .string({ error: 'must be an http or https URL' })
      .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
      .refine(isHttpUrl, 'must be an http or https URL')
      .meta({ description: 'An http or https URL. Redirects are not followed.', examples: ['https://crm.example.com/hooks/crm-messaging'] }),
    events: z
      .array(z.enum(EVENT_PATTERNS, { error: `must be one of ${PATTERN_LIST}` }), { error: `must be an array of event types (${PATTERN_LIST})` })
      .min(1, 'must name at least one event type, or be left out for all of them')
      .max(EVENT_PATTERNS.length, `must name at most ${EVENT_PATTERNS.length} patterns`)
      .nullish()
      .meta({ description: 'Event types, `assignment.*`, `message.*`, `rotation.*`, `client.*` or `*`. Absent or null: every type.', examples: [['assignment.*', 'message.sent']] }),
    description: z.string({ error: 'must be a string' }).max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`).nullish(),
  })
  .meta({ id: 'NewWebhook', description: 'A field not described here is a 400 `Unknown field: {name}`.' });

const webhookFields = {
  _id: uuid(),
  url: z.string().meta({ format: 'uri', description: 'Where events are POSTed.' }),
  events: z.array(z.enum(EVENT_PATTERNS)).min(1).meta({ description: 'The types it receives; `*` is every type.' }),
  description: z.string().nullable(),
  previous_secret_expires_at: dateOrNull('Until when the secret a rotation replaced still signs beside the current one; null when none does.'),
  disabled_at: dateOrNull('When deliveries stopped because the receiver answered 410 Gone; null while active.'),
  disabled_reason: z.string().nullable().meta({ examples: ['The receiver answered 410 Gone'] }),
  created_at: DateTime,
  updated_at: DateTime,
};

export const Webhook = z.strictObject(webhookFields).meta({ id: 'Webhook' });

export const WebhookWithSecret = z
  .strictObject({
    ...webhookFields,
    secret: z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/).meta({ description: 'The signing secret, in Standard Webhooks form. Shown in this answer only: keep it.' }),
  })
  .meta({ id: 'WebhookWithSecret' });

export const WebhookList = z.strictObject({ webhooks: z.array(Webhook).meta({ description: 'Oldest first.' }) }).meta({ id: 'WebhookList' });

export const WebhookDelivery = z
  .strictObject({
    _id: uuid(),
    event: z.strictObject({ id: uuid(), type: z.string(), created_at: DateTime }),
    status: z.enum(['pending', 'delivered', 'failed', 'abandoned']).meta({
      description: '`failed`: the receiver refused it (a 4xx other than 408 and 429, or a 3xx). `abandoned`: retries ran out, or the webhook was disabled, or an operator canceled it.',
    }),
    attempts: z.int().min(0),
    last_status_code: z.int().nullable().meta({ description: 'The receiver\'s last HTTP status; null when it could not be reached.' }),
    last_error: z.string().nullable().meta({ description: 'What went wrong, in the service\'s words (never the receiver\'s body).', examples: ['Receiver answered 503 Service Unavailable'] }),
    next_attempt_at: dateOrNull('When the next attempt is due, while pending after a failed one.'),
    delivered_at: dateOrNull('When the receiver answered 2xx.'),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'WebhookDelivery' });

export const WebhookDeliveryList = z.strictObject({ deliveries: z.array(WebhookDelivery).meta({ description: 'Newest first.' }) }).meta({ id: 'WebhookDeliveryList' });

export const WEBHOOK_SCHEMAS = { requests: [NewWebhook], responses: [Webhook, WebhookWithSecret, WebhookList, WebhookDelivery, WebhookDeliveryList] };
