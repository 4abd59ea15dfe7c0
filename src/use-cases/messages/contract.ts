import { z } from 'zod';
import { MAX_MEDIA } from '../../domain/channels';
import { DELIVERED_CHANNELS, MAX_POSTBACK_DATA, MAX_SUGGESTION_TEXT, MAX_SUGGESTIONS } from '../../domain/rcs';
import { MESSAGE_STATUSES } from '../../domain/messages';
import { ChangedBy, DateTime, dateOrNull, page, ResourceId, uuid } from '../input/contract';

/*
 * The contract of a message: what `POST /messages` reads and what every view of a message shows. The
 * parser (request.ts) keeps the interface document's checks, their order and texts; it refuses a field
 * this schema does not name (fieldsOfSchema). The OpenAPI document is generated from these schemas.
 */

export const MAX_TEXT_LENGTH = 4096;
export const MAX_NAME_LENGTH = 200;
export const MAX_MEDIA_URL_LENGTH = 2048;
export const MAX_VARIABLE_LENGTH = 1024;

const CLOCK = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** `channel`, `media` and `template` of `POST /messages`; `POST /messages/batch` takes them once for every recipient. */
export const channelFields = {
  channel: z.enum(['sms', 'whatsapp', 'rcs']).nullish().default('sms').meta({
    description:
      'How it goes: `sms` (absent or null: today\'s text message; with `media` an MMS), `whatsapp`, or `rcs`: RCS from one of the business\'s RCS senders ' +
      '(a number whose `channels` include `rcs`), which the carrier itself falls back to SMS (MMS with `media`) from the same number where the handset or its network ' +
      'takes no RCS; `delivered_channel` then says which one the client got. The sender must carry it (else a 409 naming the sender).',
  }),
  media: z
    .array(z.object({ url: z.url().regex(/^https:\/\//).max(MAX_MEDIA_URL_LENGTH) }))
    .max(MAX_MEDIA.sms)
    .nullish()
    .meta({
      description:
        'Files the carrier fetches and sends with the text: at most 10 for `sms` (the message is then an MMS), at most one for `whatsapp` and `rcs`. ' +
        'Each URL `https` on a public host (no private, loopback or link-local address, no local name; the webhooks\' guard), at most 2,048 characters. ' +
        'A name is resolved at accept (2 s at most): one that resolves to such an address (`127.0.0.1.nip.io`) is a 400 naming it; one that does not resolve is left to the carrier. Another field of an item is a 400 `Unknown field: media[{n}].{name}`.',
      examples: [[{ url: 'https://cdn.example.com/receipts/A-1.jpg' }]],
    }),
  template: z
    .object({
      _id: ResourceId.meta({ description: 'The template\'s id.' }),
      variables: z.record(z.string(), z.string().min(1).max(MAX_VARIABLE_LENGTH)).nullish().meta({
        description: 'Each variable the template declares, by name: a non-blank string of at most 1,024 characters.',
      }),
    })
    .nullish()
    .meta({
      description:
        'WhatsApp only (`"channel": "whatsapp"`): one of the caller\'s templates (`PUT /templates/{_id}`) and a value for each of its `variables`, no other. ' +
        'It goes only to a `client` whose WhatsApp consent is recorded (`PUT /clients/{_id}/consents/whatsapp`), and only once WhatsApp approved it; ' +
        'it may go outside WhatsApp\'s 24-hour window. Without `text_message` the template is the message (its `text_message` is the template\'s `body` with the values). ' +
        'With `text_message` too, the text goes if the window is open when the message is due, else the template instead.',
      examples: [{ _id: 'order_shipped', variables: { 1: 'A-1' } }],
    }),
  suggestions: z
    .array(
      z.object({
        text: z.string().min(1).max(MAX_SUGGESTION_TEXT).meta({ description: 'The chip\'s text, 1–25 characters, each distinct: what the message shows when the client taps it.' }),
        postback_data: z.string().min(1).max(MAX_POSTBACK_DATA).nullish().meta({ description: 'What the tap sends back (at most 200 characters); absent: the text.' }),
      }),
    )
    .min(1)
    .max(MAX_SUGGESTIONS)
    .nullish()
    .meta({
      description:
        'RCS only (`"channel": "rcs"`): up to 10 suggested replies shown under the text. A tap comes back as an inbound `rcs` message whose text is the chip\'s and whose ' +
        '`suggestions` names the tapped one. The SMS fallback carries the text alone. Another field of an item is a 400 `Unknown field: suggestions[{n}].{name}`.',
      examples: [[{ text: 'Yes, 3pm works', postback_data: 'confirm' }, { text: 'Another time' }]],
    }),
};

/** What the channel fields add to the request's shape, which zod's types do not say: text or a template, at most one file on WhatsApp, a template only on WhatsApp. */
export const channelRules = [
  {
    anyOf: [
      { properties: { text_message: { type: 'string', pattern: '\\S' } }, required: ['text_message'] },
      { properties: { template: { type: 'object', additionalProperties: true } }, required: ['template'] },
    ],
  },
  { if: { properties: { channel: { const: 'whatsapp' } }, required: ['channel'] }, then: { properties: { media: { type: ['array', 'null'], maxItems: 1 } } } },
  { if: { properties: { channel: { const: 'rcs' } }, required: ['channel'] }, then: { properties: { media: { type: ['array', 'null'], maxItems: 1 } } } },
  { if: { properties: { suggestions: { type: 'array' } }, required: ['suggestions'] }, then: { properties: { channel: { const: 'rcs' } }, required: ['channel'] } },
  { if: { properties: { template: { type: 'object' } }, required: ['template'] }, then: { properties: { channel: { const: 'whatsapp' } }, required: ['channel'] } },
];

export const sendWindow = z.strictObject({
  from: z.string().regex(CLOCK).meta({ description: '`HH:MM`, 24-hour.', examples: ['08:00'] }),
  to: z.string().regex(CLOCK).meta({ description: '`HH:MM`, 24-hour, not equal to `from`.', examples: ['21:00'] }),
  timezone: z.string().nullish().meta({ description: 'An IANA time zone; wins over the client\'s.', examples: ['America/New_York'] }),
});

export const delayField = z.union([z.string(), z.int()]).nullish();
export const sendAtField = z.string().nullish();

export const SendMessageRequest = z
  .strictObject({
    message_type: z.literal('text'),
    client: z.string().nullish().meta({ description: 'Id of one of the caller\'s clients in this business.', examples: ['c1'] }),
    client_phone: z.string().nullish().meta({
      description: 'Where to send it; wins over the client\'s stored phone. Spaces, dashes, dots and parentheses are removed; the rest must be E.164.',
      examples: ['+1 415 555 0123'],
    }),
    client_name: z.string().max(MAX_NAME_LENGTH).nullish().meta({ description: 'Name for the provider. Default: the client\'s stored name.' }),
    text_message: z.string().max(MAX_TEXT_LENGTH).nullish().meta({
      description:
        '1–4096 Unicode characters, not only whitespace. Optional with a `template`: absent, null or blank, the template is the message; ' +
        'given, it goes if WhatsApp\'s 24-hour window is open when the message is due, else the template instead.',
    }),
    delay: delayField.meta({
      description:
        'When to send. Absent, null, empty or 0: now. A whole number: seconds. `90s`, `5m`, `2h`, `1d` or sums such as `1h30m`. ' +
        'An ISO 8601 duration (`PT5M`, `P1DT2H`, `P1M`: calendar months in UTC). At most ten years.',
      examples: ['10s', 'PT1H', 30],
    }),
    send_at: sendAtField.meta({
      format: 'date-time',
      description:
        'When to send, as an instant: ISO 8601 with its zone (`Z` or an offset such as `-05:00`); a time without a zone is refused. ' +
        'Not with `delay` (400 when both are given). Up to five minutes past is sent now (the answer\'s `send_at` is then the time of acceptance); ' +
        'further past, or more than ten years ahead, is refused. The answer\'s `send_at` is this instant in UTC.',
      examples: ['2030-01-01T09:00:00Z', '2030-01-01T09:00:00-05:00'],
    }),
    send_window: sendWindow.nullish().meta({
      description:
        'Quiet hours: the hours of the day the message may go out, on the wall clock of `timezone` (default: the client\'s `timezone`; ' +
        'without either the request is refused). `from` is inclusive, `to` exclusive; `from` later than `to` spans midnight (`21:00`–`08:00`). ' +
        'A message due outside the window keeps its `send_at` and goes out when the window next opens there (`deferred_until`); ' +
        'a `from` that a daylight-saving change skips opens the window at the change. Null: no window. Another field is a 400 `Unknown field: send_window.{name}`.',
      examples: [{ from: '08:00', to: '21:00', timezone: 'America/New_York' }],
    }),
    agent: z.string().nullish().meta({
      description:
        'The caller\'s agent the message answers for (else 400 `Agent {id} not found or not authorized`). Accepting a message to a `client` that names its owner ' +
        'counts as that owner\'s first response to the routing decision that gave it the client (lead routing). Not stored on the message.',
      examples: ['a1'],
    }),
    ...channelFields,
  })
  .meta({
    id: 'SendMessageRequest',
    description:
      'At least one of `client` and `client_phone`, and `text_message` unless a WhatsApp `template` is given. Absent, null and blank values count as not given. A field not described here is a 400 `Unknown field: {name}`.',
    anyOf: ['client', 'client_phone'].map((field) => ({ properties: { [field]: { type: 'string', pattern: '\\S' } }, required: [field] })),
    allOf: channelRules,
  });

/** The body of `POST /messages` as a client writes it. */
export type SendMessageBody = z.input<typeof SendMessageRequest>;

const workflowId = z.string().regex(/^message(-batch)?\//);

export const AcceptedMessage = z
  .strictObject({
    _id: uuid(),
    status: z.enum(MESSAGE_STATUSES).meta({ description: '`scheduled` for a new message, even one due now; a replay shows the current status.' }),
    send_at: DateTime,
    workflow_id: workflowId.meta({ examples: ['message/acme/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4'] }),
  })
  .meta({ id: 'AcceptedMessage' });

export const OutboundMedia = z
  .strictObject({ url: z.url().regex(/^https:\/\//).max(MAX_MEDIA_URL_LENGTH).meta({ description: 'As the request gave it; the carrier fetched it from there.' }) })
  .meta({ id: 'OutboundMedia' });

export const InboundMedia = z
  .strictObject({
    url: z.string().regex(/^\/ext\/v2\/[^/]+\/messages\/[^/]+\/media\/[0-9]+$/).meta({
      description: 'This API\'s path of the file: `GET` it with the same token.',
      examples: ['/ext/v2/acme/messages/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4/media/0'],
    }),
    content_type: z.string().nullable().meta({ description: 'Its type as the carrier reported it.', examples: ['image/jpeg'] }),
    size: z.int().min(0).nullable().meta({ description: 'Its size in bytes, when the carrier reported it.' }),
  })
  .meta({ id: 'InboundMedia' });

export const MessageTemplate = z
  .strictObject({
    _id: ResourceId,
    variables: z.record(z.string(), z.string()).meta({ description: 'The values the message was sent with, by variable name.', examples: [{ 1: 'A-1' }] }),
  })
  .meta({ id: 'MessageTemplate' });

const shownWindow = z
  .object({ from: z.string().regex(CLOCK), to: z.string().regex(CLOCK), timezone: z.string().nullable() })
  .partial()
  .loose()
  .nullable()
  .meta({ description: 'The quiet-hours window the message may go out in, as given.' });

export const Message = z
  .strictObject({
    _id: uuid(),
    status: z.enum(MESSAGE_STATUSES),
    send_at: DateTime,
    workflow_id: workflowId.nullable().meta({ description: 'Null for an inbound message: it has no workflow. A campaign\'s message names its batch\'s workflow.' }),
    message_type: z.literal('text'),
    client: z.string().nullable(),
    client_phone: z.string().regex(/^\+[1-9][0-9]{6,14}$/).nullable().meta({ description: 'E.164; null once its client was erased (`DELETE /clients/{_id}`).' }),
    client_name: z.string().nullable(),
    from: z.string().nullable().meta({
      description:
        'Who sent the text. Outbound: our number it goes out from — one of the business\'s own numbers (the same one for the same phone), else the deployment\'s ' +
        'shared sender (a number or messaging service); null without a carrier. Inbound: the client\'s phone.',
    }),
    to: z.string().nullable().meta({ description: 'Who it was sent to. Outbound: the client\'s phone. Inbound: our number the client texted.' }),
    text_message: z.string().meta({
      description: 'A template\'s message: its `body` with the values (empty for a template registered without one), also when it went instead of the text. An inbound file alone: empty. Empty once its client was erased.',
    }),
    attempts: z.int().min(0).meta({ description: 'Hand-overs to the provider, retries included.' }),
    provider: z.string().nullable().meta({ description: 'The provider that handled it: `log` or `webhook`.' }),
    provider_ref: z.string().nullable().meta({ description: 'The provider\'s own id of the delivery.' }),
    error: z.string().nullable().meta({ description: 'Why it failed.', examples: ['Webhook answered 400: bad number'] }),
    created_at: DateTime,
    updated_at: DateTime,
    dispatched_at: dateOrNull('When it left `scheduled`.'),
    sent_at: dateOrNull('When the provider accepted it.'),
    canceled_at: dateOrNull('When it was canceled.'),
    canceled_by: ChangedBy.nullable().meta({ description: 'Who canceled it: `user`/`api` (its owner) or `operator`/`operator` (its workflow canceled in the Temporal UI); null unless canceled.' }),
    direction: z.enum(['outbound', 'inbound']).meta({ description: '`inbound`: a text the client sent (status `received`, no workflow).' }),
    encoding: z.enum(['GSM-7', 'UCS-2']).nullable().meta({ description: 'How the text travels as SMS, computed at accept: GSM-7 when every character is in the GSM 03.38 alphabet, else UCS-2.' }),
    segments: z.int().min(1).nullable().meta({ description: 'SMS parts the text takes (160/153 GSM-7 characters, 70/67 UCS-2 code units).' }),
    send_window: shownWindow,
    deferred_until: dateOrNull('When a message due outside its `send_window` goes out instead; `send_at` keeps what was asked.'),
    delivered_at: dateOrNull('When the carrier\'s receipt said it reached the handset.'),
    error_code: z.string().nullable().meta({ description: 'The carrier\'s error code, from its answer or its receipt.', examples: ['30003', '21610'] }),
    price: z
      .object({ amount: z.string().meta({ examples: ['-0.0079'] }), unit: z.string().nullable().meta({ examples: ['USD'] }) })
      .loose()
      .nullable()
      .meta({ description: 'What the carrier charged, when a receipt carried it.' }),
    suppressed_at: dateOrNull('When it was not sent because the recipient had opted out by then.'),
    suppressed_reason: z.string().nullable().meta({ examples: ['Recipient has opted out of text messages'] }),
    received_at: dateOrNull('Inbound: when the carrier received it.'),
    batch_id: uuid().nullable().meta({ description: 'The campaign (`POST /messages/batch`) it was accepted in; null for a single message.' }),
    conversation: uuid().nullable().meta({
      description: 'The conversation it belongs to (`GET /conversations/{_id}`): a client\'s message on one sender. Null for a message to a bare phone, a campaign\'s, or one of an erased client.',
    }),
    channel: z.enum(['sms', 'whatsapp', 'rcs']).meta({ description: 'How it went or came: `sms` (an MMS when it has `media`), `whatsapp` or `rcs`.' }),
    media: z.array(z.union([OutboundMedia, InboundMedia])).meta({
      description:
        'Its files. Outbound: the URLs as the request gave them. Inbound: where this API streams each file (`GET /messages/{_id}/media/{n}`, so the carrier\'s ' +
        'credentials are never needed), with its type and size as the carrier reported them. Empty for none, and once its client was erased.',
    }),
    template: MessageTemplate.nullable().meta({ description: 'The WhatsApp template it names, with the caller\'s values (not the carrier\'s reference); null for none, and once its client was erased.' }),
    read_at: dateOrNull('When WhatsApp\'s or RCS\'s read receipt said the client read it (status `read`).'),
    delivered_channel: z.enum(DELIVERED_CHANNELS).nullable().optional().meta({
      description:
        'RCS messages only (absent on any other): the channel the client got it on, from the carrier\'s receipt — `rcs`, or `sms` when the carrier fell back to SMS/MMS ' +
        '(the handset or its network takes no RCS); null until a receipt says. An inbound `rcs` message: `rcs`.',
    }),
    suggestions: z
      .array(z.strictObject({ text: z.string(), postback_data: z.string() }))
      .optional()
      .meta({ description: 'RCS messages only (absent on any other). Outbound: the suggested replies it offered. Inbound: the one the client tapped; empty for typed text.' }),
  })
  .meta({ id: 'Message' });

export const MessageList = page('messages', Message, 'Newest first.').strict().meta({ id: 'MessageList' });

/** The query of `GET /messages`; `GET /clients/{_id}/messages` reads it without `client`. */
export const MessageListQuery = z.object({
  status: z.enum(MESSAGE_STATUSES).optional(),
  direction: z.enum(['inbound', 'outbound']).optional().meta({ description: '`outbound`: what was sent; `inbound`: what clients texted back. Absent: both.' }),
  client: ResourceId.optional().meta({ description: 'Only messages to this client; another user\'s id simply matches nothing.' }),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(200).optional().meta({ description: 'The `next_cursor` of the previous page.' }),
});

export const MESSAGE_SCHEMAS = { requests: [SendMessageRequest], responses: [AcceptedMessage, Message, MessageList, OutboundMedia, InboundMedia, MessageTemplate] };
