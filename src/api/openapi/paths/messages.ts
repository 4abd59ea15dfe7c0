import type { ApiPart } from '../components';
import { BAD_BODY_OR_PATH, BAD_PATH, BAD_PATH_EXAMPLE, BODY_EXAMPLES, businessResponses, inBusiness, json, NO_ROUTE_EXAMPLE, operation, PREFIX, problem, ref, UNKNOWN_BUSINESS } from '../components';
import { CHANNEL_BAD_REQUESTS, CHANNEL_CONFLICTS, CHANNEL_REQUEST_EXAMPLES, channelMessageProperties, channelRequestProperties, channelRequestRules, SMS_CHANNEL_FIELDS } from './message-channels';

const MESSAGE_STATUSES = ['scheduled', 'sending', 'sent', 'delivered', 'read', 'undelivered', 'failed', 'canceled', 'suppressed', 'received'];
const messageNotFound = { messageNotFound: 'Message not found', ...NO_ROUTE_EXAMPLE };
const messageIdParameter = {
  name: '_id',
  in: 'path',
  required: true,
  description: 'The message\'s id. One of another user or business is the same 404 as a missing one.',
  schema: { type: 'string' },
  example: '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4',
};
const directionParameter = {
  name: 'direction',
  in: 'query',
  required: false,
  description: '`outbound`: what was sent; `inbound`: what clients texted back. Absent: both.',
  schema: { type: 'string', enum: ['inbound', 'outbound'] },
};
const listParameters = [
  { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
  { name: 'cursor', in: 'query', required: false, description: 'The `next_cursor` of the previous page.', schema: { type: 'string', maxLength: 200 } },
];
const dateOrNull = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });

const sentMessage = {
  _id: '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4',
  status: 'sent',
  send_at: '2026-11-22T05:14:13.462Z',
  workflow_id: 'message/acme/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4',
  message_type: 'text',
  client: 'c1',
  client_phone: '+442079460958',
  client_name: 'Ada Lovelace',
  from: '+15005550006',
  to: '+442079460958',
  text_message: 'Hello Ada, your order has shipped.',
  attempts: 1,
  provider: 'log',
  provider_ref: 'log:7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4',
  error: null,
  created_at: '2026-11-22T05:14:13.462Z',
  updated_at: '2026-11-22T05:14:13.625Z',
  dispatched_at: '2026-11-22T05:14:13.601Z',
  sent_at: '2026-11-22T05:14:13.625Z',
  canceled_at: null,
  canceled_by: null,
  direction: 'outbound',
  encoding: 'GSM-7',
  segments: 1,
  send_window: null,
  deferred_until: null,
  delivered_at: null,
  error_code: null,
  price: null,
  suppressed_at: null,
  suppressed_reason: null,
  received_at: null,
  batch_id: null,
  conversation: '9b1f6d2a-8c4e-5f3a-9d7b-2e6c4a1f8b30',
  ...SMS_CHANNEL_FIELDS,
};

export const messagesApi: ApiPart = {
  tags: [
    {
      name: 'Messages',
      description:
        'Messages to a client by SMS (with media: MMS) or WhatsApp, sent now or after a delay of up to ten years. ' +
        'Lifecycle: `scheduled` → `sending` → `sent` | `failed`, and `scheduled` → `canceled`; with a carrier, its receipts take `sending`/`sent` on to ' +
        '`delivered` | `undelivered` | `failed` (final), WhatsApp\'s read receipt `sending`/`sent`/`delivered` on to `read` (nothing moves a `read` message), and a message whose recipient opted out before it was due ends `suppressed` instead of being sent. ' +
        'WhatsApp free text goes only within 24 hours of the client\'s last WhatsApp message to the sender; outside that window only an approved template (`PUT /templates/{_id}`) to a client who opted in. ' +
        'A message the client sends back is an `inbound` message, `received`; its files are read through `GET /messages/{_id}/media/{n}`.',
    },
  ],
  schemas: {
    SendMessageRequest: {
      type: 'object',
      required: ['message_type'],
      description:
        'At least one of `client` and `client_phone`, and `text_message` unless a WhatsApp `template` is given. Absent, null and blank values count as not given. A field not described here is a 400 `Unknown field: {name}`.',
      additionalProperties: false,
      anyOf: ['client', 'client_phone'].map((field) => ({ properties: { [field]: { type: 'string', pattern: '\\S' } }, required: [field] })),
      allOf: channelRequestRules,
      properties: {
        message_type: { const: 'text' },
        client: { type: ['string', 'null'], description: 'Id of one of the caller\'s clients in this business.', examples: ['c1'] },
        client_phone: {
          type: ['string', 'null'],
          description: 'Where to send it; wins over the client\'s stored phone. Spaces, dashes, dots and parentheses are removed; the rest must be E.164.',
          examples: ['+1 415 555 0123'],
        },
        client_name: { type: ['string', 'null'], maxLength: 200, description: 'Name for the provider. Default: the client\'s stored name.' },
        text_message: {
          type: ['string', 'null'],
          maxLength: 4096,
          description:
            '1–4096 Unicode characters, not only whitespace. Optional with a `template`: absent, null or blank, the template is the message; ' +
            'given, it goes if WhatsApp\'s 24-hour window is open when the message is due, else the template instead.',
        },
        delay: {
          type: ['string', 'integer', 'null'],
          description:
            'When to send. Absent, null, empty or 0: now. A whole number: seconds. `90s`, `5m`, `2h`, `1d` or sums such as `1h30m`. ' +
            'An ISO 8601 duration (`PT5M`, `P1DT2H`, `P1M`: calendar months in UTC). At most ten years.',
          examples: ['10s', 'PT1H', 30],
        },
        send_at: {
          type: ['string', 'null'],
          format: 'date-time',
          description:
            'When to send, as an instant: ISO 8601 with its zone (`Z` or an offset such as `-05:00`); a time without a zone is refused. ' +
            'Not with `delay` (400 when both are given). Up to five minutes past is sent now (the answer\'s `send_at` is then the time of acceptance); ' +
            'further past, or more than ten years ahead, is refused. The answer\'s `send_at` is this instant in UTC.',
          examples: ['2030-01-01T09:00:00Z', '2030-01-01T09:00:00-05:00'],
        },
        send_window: {
          type: ['object', 'null'],
          description:
            'Quiet hours: the hours of the day the message may go out, on the wall clock of `timezone` (default: the client\'s `timezone`; ' +
            'without either the request is refused). `from` is inclusive, `to` exclusive; `from` later than `to` spans midnight (`21:00`–`08:00`). ' +
            'A message due outside the window keeps its `send_at` and goes out when the window next opens there (`deferred_until`); ' +
            'a `from` that a daylight-saving change skips opens the window at the change. Null: no window. Another field is a 400 `Unknown field: send_window.{name}`.',
          required: ['from', 'to'],
          properties: {
            from: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: '`HH:MM`, 24-hour.', examples: ['08:00'] },
            to: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: '`HH:MM`, 24-hour, not equal to `from`.', examples: ['21:00'] },
            timezone: { type: ['string', 'null'], description: 'An IANA time zone; wins over the client\'s.', examples: ['America/New_York'] },
          },
          examples: [{ from: '08:00', to: '21:00', timezone: 'America/New_York' }],
        },
        agent: {
          type: ['string', 'null'],
          description:
            'The caller\'s agent the message answers for (else 400 `Agent {id} not found or not authorized`). Accepting a message to a `client` that names its owner ' +
            'counts as that owner\'s first response to the routing decision that gave it the client (lead routing). Not stored on the message.',
          examples: ['a1'],
        },
        ...channelRequestProperties,
      },
    },
    AcceptedMessage: {
      type: 'object',
      required: ['_id', 'status', 'send_at', 'workflow_id'],
      additionalProperties: false,
      properties: {
        _id: { type: 'string', format: 'uuid' },
        status: { enum: MESSAGE_STATUSES, description: '`scheduled` for a new message, even one due now; a replay shows the current status.' },
        send_at: ref('schemas', 'DateTime'),
        workflow_id: { type: 'string', pattern: '^message(-batch)?/', examples: ['message/acme/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4'] },
      },
    },
    Message: {
      type: 'object',
      required: [
        '_id', 'status', 'send_at', 'workflow_id', 'message_type', 'client', 'client_phone', 'client_name', 'from', 'to', 'text_message', 'attempts',
        'provider', 'provider_ref', 'error', 'created_at', 'updated_at', 'dispatched_at', 'sent_at', 'canceled_at',
        'canceled_by', 'direction', 'encoding', 'segments', 'send_window', 'deferred_until', 'delivered_at', 'error_code', 'price',
        'suppressed_at', 'suppressed_reason', 'received_at', 'batch_id', 'conversation', 'channel', 'media', 'template', 'read_at',
      ],
      additionalProperties: false,
      properties: {
        _id: { type: 'string', format: 'uuid' },
        status: { enum: MESSAGE_STATUSES },
        send_at: ref('schemas', 'DateTime'),
        workflow_id: { type: ['string', 'null'], pattern: '^message(-batch)?/', description: 'Null for an inbound message: it has no workflow. A campaign\'s message names its batch\'s workflow.' },
        message_type: { const: 'text' },
        client: { type: ['string', 'null'] },
        client_phone: { type: ['string', 'null'], pattern: '^\\+[1-9][0-9]{6,14}$', description: 'E.164; null once its client was erased (`DELETE /clients/{_id}`).' },
        client_name: { type: ['string', 'null'] },
        from: {
          type: ['string', 'null'],
          description:
            'Who sent the text. Outbound: our number it goes out from — one of the business\'s own numbers (the same one for the same phone), else the deployment\'s ' +
            'shared sender (a number or messaging service); null without a carrier. Inbound: the client\'s phone.',
        },
        to: { type: ['string', 'null'], description: 'Who it was sent to. Outbound: the client\'s phone. Inbound: our number the client texted.' },
        text_message: {
          type: 'string',
          description: 'A template\'s message: its `body` with the values (empty for a template registered without one), also when it went instead of the text. An inbound file alone: empty. Empty once its client was erased.',
        },
        attempts: { type: 'integer', minimum: 0, description: 'Hand-overs to the provider, retries included.' },
        provider: { type: ['string', 'null'], description: 'The provider that handled it: `log` or `webhook`.' },
        provider_ref: { type: ['string', 'null'], description: 'The provider\'s own id of the delivery.' },
        error: { type: ['string', 'null'], description: 'Why it failed.', examples: ['Webhook answered 400: bad number'] },
        created_at: ref('schemas', 'DateTime'),
        updated_at: ref('schemas', 'DateTime'),
        dispatched_at: dateOrNull('When it left `scheduled`.'),
        sent_at: dateOrNull('When the provider accepted it.'),
        canceled_at: dateOrNull('When it was canceled.'),
        canceled_by: { oneOf: [ref('schemas', 'ChangedBy'), { type: 'null' }], description: 'Who canceled it: `user`/`api` (its owner) or `operator`/`operator` (its workflow canceled in the Temporal UI); null unless canceled.' },
        direction: { enum: ['outbound', 'inbound'], description: '`inbound`: a text the client sent (status `received`, no workflow).' },
        encoding: { enum: ['GSM-7', 'UCS-2', null], description: 'How the text travels as SMS, computed at accept: GSM-7 when every character is in the GSM 03.38 alphabet, else UCS-2.' },
        segments: { type: ['integer', 'null'], minimum: 1, description: 'SMS parts the text takes (160/153 GSM-7 characters, 70/67 UCS-2 code units).' },
        send_window: {
          type: ['object', 'null'],
          description: 'The quiet-hours window the message may go out in, as given.',
          properties: { from: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }, to: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }, timezone: { type: ['string', 'null'] } },
        },
        deferred_until: dateOrNull('When a message due outside its `send_window` goes out instead; `send_at` keeps what was asked.'),
        delivered_at: dateOrNull('When the carrier\'s receipt said it reached the handset.'),
        error_code: { type: ['string', 'null'], description: 'The carrier\'s error code, from its answer or its receipt.', examples: ['30003', '21610'] },
        price: {
          type: ['object', 'null'],
          required: ['amount', 'unit'],
          properties: { amount: { type: 'string', examples: ['-0.0079'] }, unit: { type: ['string', 'null'], examples: ['USD'] } },
          description: 'What the carrier charged, when a receipt carried it.',
        },
        suppressed_at: dateOrNull('When it was not sent because the recipient had opted out by then.'),
        suppressed_reason: { type: ['string', 'null'], examples: ['Recipient has opted out of text messages'] },
        received_at: dateOrNull('Inbound: when the carrier received it.'),
        batch_id: { type: ['string', 'null'], format: 'uuid', description: 'The campaign (`POST /messages/batch`) it was accepted in; null for a single message.' },
        conversation: {
          type: ['string', 'null'],
          format: 'uuid',
          description: 'The conversation it belongs to (`GET /conversations/{_id}`): a client\'s message on one sender. Null for a message to a bare phone, a campaign\'s, or one of an erased client.',
        },
        ...channelMessageProperties,
      },
    },
    MessageList: {
      type: 'object',
      required: ['messages', 'next_cursor'],
      additionalProperties: false,
      properties: {
        messages: { type: 'array', items: ref('schemas', 'Message'), description: 'Newest first.' },
        next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' },
      },
    },
  },
  paths: {
    [`${PREFIX}/messages`]: inBusiness({
      post: operation('sendMessage', 'Messages', 'Send a message by SMS, MMS or WhatsApp', {
        description:
          'Checks, in this order: the token; `Idempotency-Key`; `message_type`; `client` or `client_phone` present; the client (404); ' +
          'the phone; `channel`; `media`; `template` (its variables against the caller\'s template); `text_message`; `client_name`; `delay`; `send_window`; `agent`. ' +
          'Then, once the sender is chosen (one of the business\'s numbers that carries the channel, else the shared sender), the 409s: the recipient\'s opt-out of the channel, ' +
          'the sender carrying the channel (WhatsApp, MMS, SMS), and on WhatsApp the template\'s consent and approval or, for free text, the 24-hour window. A refused request stores nothing.',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Makes the request safe to repeat: the same key with the same request answers with the first message and never sends twice; ' +
              'the same key with another request is a 422. Keys belong to one user in one business and do not expire.',
            schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~](?:[ -~]{0,253}[!-~])?$' },
            example: 'reminder-42',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'SendMessageRequest'),
              examples: {
                toClient: { summary: 'Now, to a client\'s stored phone', value: { message_type: 'text', client: 'c1', text_message: 'Hello Ada, your order has shipped.' } },
                delayed: { summary: 'In an hour, to any number', value: { message_type: 'text', client_phone: '+1 415 555 0123', text_message: 'Reminder: see you tomorrow.', delay: 'PT1H' } },
                quietHours: {
                  summary: 'Tomorrow, between 08:00 and 21:00 in the client\'s time zone',
                  value: { message_type: 'text', client: 'c1', text_message: 'Your appointment is confirmed.', delay: 'P1D', send_window: { from: '08:00', to: '21:00' } },
                },
                ...CHANNEL_REQUEST_EXAMPLES,
              },
            },
          },
        },
        responses: {
          202: json('Stored and scheduled; `GET` the `Location` to follow it.', ref('schemas', 'AcceptedMessage'), {
            headers: {
              Location: ref('headers', 'Location'),
              'Idempotent-Replayed': { description: 'Present when this answers a repeated `Idempotency-Key`.', schema: { type: 'string', const: 'true' } },
            },
            example: {
              _id: '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4',
              status: 'scheduled',
              send_at: '2026-11-22T05:14:13.462Z',
              workflow_id: 'message/acme/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4',
            },
          }),
          400: problem(400, 'The request is invalid; the detail says which check failed.', {
            invalidKey: 'Invalid Idempotency-Key: must be 1-255 printable ASCII characters',
            twoKeys: 'More than one Idempotency-Key header',
            invalidType: 'Invalid message_type: must be "text"',
            missingRecipient: 'Missing client or client_phone',
            invalidClient: 'Invalid client: must be a client id string',
            invalidPhone: 'Invalid client_phone: must be an E.164 phone number such as +14155550123',
            noPhone: 'Client c1 has no phone number: send client_phone',
            ...CHANNEL_BAD_REQUESTS,
            textNotString: 'Invalid text_message: must be a string',
            missingText: 'Missing or empty text_message',
            longText: 'Invalid text_message: at most 4096 characters',
            invalidName: 'Invalid client_name: must be a string of at most 200 characters',
            invalidDelay: 'Invalid delay',
            delayAndSendAt: 'Invalid send_at: give delay or send_at, not both',
            invalidSendAt: 'Invalid send_at: must be an ISO 8601 date-time with its zone, such as 2030-01-01T09:00:00Z or 2030-01-01T09:00:00-05:00',
            pastSendAt: 'Invalid send_at: must not be in the past (5 minutes late at most, which sends now)',
            farSendAt: 'Invalid send_at: at most 10 years ahead',
            invalidWindow: 'Invalid send_window: must be an object such as {"from": "08:00", "to": "21:00", "timezone": "America/New_York"}',
            invalidWindowFrom: 'Invalid send_window.from: must be a time of day HH:MM, 00:00 to 23:59',
            invalidWindowTo: 'Invalid send_window.to: must be a time of day HH:MM, 00:00 to 23:59',
            emptyWindow: 'Invalid send_window: from and to must differ',
            invalidWindowZone: 'Invalid send_window.timezone: must be an IANA time zone such as America/New_York',
            windowWithoutZone: 'Missing send_window.timezone: a message without a client must name it',
            clientWithoutZone: 'Client c1 has no timezone: send send_window.timezone',
            misnamedField: 'Unknown field: sendAt',
            ...BODY_EXAMPLES,
            ...BAD_PATH_EXAMPLE,
          }),
          404: problem(404, '`client` is not a client of the caller in this business.', { clientNotFound: 'Client not found', ...NO_ROUTE_EXAMPLE }),
          409: problem(
            409,
            'Nothing is stored. The recipient texted STOP (or the carrier reported it unsubscribed) to the sender on this channel (an SMS STOP covers SMS and MMS, a WhatsApp one WhatsApp): ' +
              'only the recipient can opt back in, by texting START. Or the business needs numbers of its own and has none (`REQUIRE_BUSINESS_NUMBERS`); ' +
              'or the sender does not carry the channel; or, on WhatsApp, a template to a bare phone or to a client without WhatsApp consent, a template WhatsApp has not approved ' +
              '(asked again of the carrier where its API tells), or free text outside the 24-hour window.',
            { optedOut: 'Recipient has opted out of text messages', noSendingNumber: 'No sending number for this business', ...CHANNEL_CONFLICTS },
          ),
          422: problem(422, 'This `Idempotency-Key` was used with a different request.', {
            keyReused: 'Idempotency-Key was already used with a different request',
          }),
          ...businessResponses(true),
          503: problem(
            503,
            'PostgreSQL or Temporal cannot be reached (with `Retry-After`), or the message could not be scheduled. ' +
              'With an `Idempotency-Key` the message is stored: repeat the request with the same key. Without one it is `failed` and will not be sent.',
            {
              unavailable: 'A backing service is unavailable; try again shortly',
              storedNotScheduled: 'The message is stored but not scheduled yet: repeat the request with the same Idempotency-Key',
              notScheduled: 'The message could not be scheduled and will not be sent: try again',
            },
            ['Retry-After'],
          ),
        },
      }),
      get: operation('listMessages', 'Messages', 'List the caller\'s messages', {
        description: 'Newest first, each as `GET /messages/{_id}` shows it, one page at a time: both directions unless `direction` says.',
        parameters: [
          { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: MESSAGE_STATUSES } },
          directionParameter,
          {
            name: 'client',
            in: 'query',
            required: false,
            description: 'Only messages to this client; another user\'s id simply matches nothing.',
            schema: ref('schemas', 'ResourceId'),
          },
          ...listParameters,
        ],
        responses: {
          200: json('One page.', ref('schemas', 'MessageList')),
          400: problem(400, 'A query parameter is invalid; the detail names it.', {
            invalidLimit: 'Invalid limit: Too small: expected number to be >=1',
            invalidStatus: 'Invalid status: Invalid option: expected one of "scheduled"|"sending"|"sent"|"delivered"|"read"|"undelivered"|"failed"|"canceled"|"suppressed"|"received"',
            invalidDirection: 'Invalid direction: Invalid option: expected one of "inbound"|"outbound"',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
            ...BAD_PATH_EXAMPLE,
          }),
          404: UNKNOWN_BUSINESS,
          ...businessResponses(false),
        },
      }),
    }),
    [`${PREFIX}/clients/{_id}/messages`]: {
      parameters: [
        ref('parameters', 'businessname'),
        { name: '_id', in: 'path', required: true, description: 'The client\'s id. One of another user or business is the same 404 as a missing one.', schema: { type: 'string' }, example: 'c1' },
      ],
      get: operation('listClientMessages', 'Messages', 'A client\'s conversation', {
        description:
          'What was sent to the client and what it texted back (its replies are matched to it by the latest message to its number that the carrier accepted), newest first, ' +
          'one page at a time as `GET /messages`.',
        parameters: [{ name: 'status', in: 'query', required: false, schema: { type: 'string', enum: MESSAGE_STATUSES } }, directionParameter, ...listParameters],
        responses: {
          200: json('One page.', ref('schemas', 'MessageList')),
          400: problem(400, 'A query parameter is invalid; the detail names it.', {
            invalidDirection: 'Invalid direction: Invalid option: expected one of "inbound"|"outbound"',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
            ...BAD_PATH_EXAMPLE,
          }),
          404: problem(404, 'No such client of the caller in this business.', { clientNotFound: 'Client not found', ...NO_ROUTE_EXAMPLE }),
          ...businessResponses(false),
        },
      }),
    },
    [`${PREFIX}/messages/{_id}`]: inBusiness({
      get: operation('getMessage', 'Messages', 'Read a message and its status', {
        responses: {
          200: json('The message.', ref('schemas', 'Message'), { example: sentMessage }),
          400: BAD_PATH,
          404: problem(404, 'No such message of the caller in this business.', messageNotFound),
          ...businessResponses(false),
        },
      }),
    }, messageIdParameter),
    [`${PREFIX}/messages/{_id}/cancel`]: inBusiness({
      post: operation('cancelMessage', 'Messages', 'Cancel a scheduled message', {
        description: 'Idempotent: canceling a canceled message answers 200 with it again. No body is needed.',
        responses: {
          200: json('The message, now `canceled`.', ref('schemas', 'Message'), {
            example: { ...sentMessage, status: 'canceled', attempts: 0, provider: null, provider_ref: null, dispatched_at: null, sent_at: null, canceled_at: '2026-11-22T05:14:13.625Z', canceled_by: { actor: 'user', reason: 'api' } },
          }),
          400: BAD_BODY_OR_PATH,
          404: problem(404, 'No such message of the caller in this business.', messageNotFound),
          409: problem(409, 'The message has already left `scheduled`.', { tooLate: 'Message 7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4 can no longer be canceled: it is sent' }),
          ...businessResponses(true),
        },
      }),
    }, messageIdParameter),
  },
};
