import { BAD_PATH_EXAMPLE, BODY_EXAMPLES, notFound, operations } from '../input/operation-docs';
import { CHANNEL_BAD_REQUESTS, CHANNEL_CONFLICTS, CHANNEL_REQUEST_EXAMPLES, SMS_CHANNEL_FIELDS } from './channel-operations';
import { AcceptedMessage, Message, MessageList, SendMessageRequest } from './contract';

/* What the document says of the messages' routes (src/use-cases/input/operation-docs.ts). */

const MESSAGE_ID = '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4';
export const SENT_MESSAGE_EXAMPLE = {
  _id: MESSAGE_ID,
  status: 'sent',
  send_at: '2026-11-22T05:14:13.462Z',
  workflow_id: `message/acme/${MESSAGE_ID}`,
  message_type: 'text',
  client: 'c1',
  client_phone: '+442079460958',
  client_name: 'Ada Lovelace',
  from: '+15005550006',
  to: '+442079460958',
  text_message: 'Hello Ada, your order has shipped.',
  attempts: 1,
  provider: 'log',
  provider_ref: `log:${MESSAGE_ID}`,
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

export const MESSAGES_TAG =
  'Messages to a client by SMS (with media: MMS) or WhatsApp, sent now or after a delay of up to ten years. ' +
  'Lifecycle: `scheduled` → `sending` → `sent` | `failed`, and `scheduled` → `canceled`; with a carrier, its receipts take `sending`/`sent` on to ' +
  '`delivered` | `undelivered` | `failed` (final), WhatsApp\'s read receipt `sending`/`sent`/`delivered` on to `read` (nothing moves a `read` message), and a message whose recipient opted out before it was due ends `suppressed` instead of being sent. ' +
  'WhatsApp free text goes only within 24 hours of the client\'s last WhatsApp message to the sender; outside that window only an approved template (`PUT /templates/{_id}`) to a client who opted in. ' +
  'A message the client sends back is an `inbound` message, `received`; its files are read through `GET /messages/{_id}/media/{n}`.';

export const IDEMPOTENCY_KEY_DESCRIPTION =
  'Makes the request safe to repeat: the same key with the same request answers with the first message and never sends twice; ' +
  'the same key with another request is a 422. Keys belong to one user in one business and do not expire.';

const MESSAGE_NOT_FOUND = notFound('No such message of the caller in this business.', { messageNotFound: 'Message not found' });
const listInvalid = (examples: Record<string, string>) => ({
  description: 'A query parameter is invalid; the detail names it.',
  examples: { ...examples, invalidDirection: 'Invalid direction: Invalid option: expected one of "inbound"|"outbound"', invalidCursor: 'Invalid cursor: pass next_cursor from the previous page', ...BAD_PATH_EXAMPLE },
});

export const MESSAGE_OPERATIONS = operations({
  sendMessage: {
    summary: 'Send a message by SMS, MMS or WhatsApp',
    description:
      'Checks, in this order: the token; `Idempotency-Key`; `message_type`; `client` or `client_phone` present; the client (404); ' +
      'the phone; `channel`; `media`; `template` (its variables against the caller\'s template); `text_message`; `client_name`; `delay`; `send_window`; `agent`. ' +
      'Then, once the sender is chosen (one of the business\'s numbers that carries the channel, else the shared sender), the 409s: the recipient\'s opt-out of the channel, ' +
      'the sender carrying the channel (WhatsApp, MMS, SMS), and on WhatsApp the template\'s consent and approval or, for free text, the 24-hour window. A refused request stores nothing.',
    body: {
      schema: SendMessageRequest,
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
    responses: {
      202: {
        description: 'Stored and scheduled; `GET` the `Location` to follow it.',
        schema: AcceptedMessage,
        headers: ['Location', 'Idempotent-Replayed'],
        example: { _id: MESSAGE_ID, status: 'scheduled', send_at: '2026-11-22T05:14:13.462Z', workflow_id: `message/acme/${MESSAGE_ID}` },
      },
      400: {
        description: 'The request is invalid; the detail says which check failed.',
        examples: {
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
        },
      },
      404: notFound('`client` is not a client of the caller in this business.', { clientNotFound: 'Client not found' }),
      409: {
        description:
          'Nothing is stored. The recipient texted STOP (or the carrier reported it unsubscribed) to the sender on this channel (an SMS STOP covers SMS and MMS, a WhatsApp one WhatsApp): ' +
          'only the recipient can opt back in, by texting START. Or the business needs numbers of its own and has none (`REQUIRE_BUSINESS_NUMBERS`); ' +
          'or the sender does not carry the channel; or, on WhatsApp, a template to a bare phone or to a client without WhatsApp consent, a template WhatsApp has not approved ' +
          '(asked again of the carrier where its API tells), or free text outside the 24-hour window. ' +
          'Or the sender is a US number whose A2P registration (its 10DLC campaign, or its toll-free verification) does not allow the send (`REQUIRE_A2P_REGISTRATION`, in production).',
        examples: { optedOut: 'Recipient has opted out of text messages', noSendingNumber: 'No sending number for this business', ...CHANNEL_CONFLICTS, notRegistered: 'Sender +14155550100 is not in an approved 10DLC campaign (pending)' },
      },
      422: { description: 'This `Idempotency-Key` was used with a different request.', examples: { keyReused: 'Idempotency-Key was already used with a different request' } },
      503: {
        description:
          'PostgreSQL or Temporal cannot be reached (with `Retry-After`), or the message could not be scheduled. ' +
          'With an `Idempotency-Key` the message is stored: repeat the request with the same key. Without one it is `failed` and will not be sent.',
        examples: {
          unavailable: 'A backing service is unavailable; try again shortly',
          storedNotScheduled: 'The message is stored but not scheduled yet: repeat the request with the same Idempotency-Key',
          notScheduled: 'The message could not be scheduled and will not be sent: try again',
        },
        headers: ['Retry-After'],
      },
    },
  },
  listMessages: {
    summary: 'List the caller\'s messages',
    description: 'Newest first, each as `GET /messages/{_id}` shows it, one page at a time: both directions unless `direction` says.',
    responses: {
      200: { description: 'One page.', schema: MessageList },
      400: listInvalid({
        invalidLimit: 'Invalid limit: Too small: expected number to be >=1',
        invalidStatus: 'Invalid status: Invalid option: expected one of "scheduled"|"sending"|"sent"|"delivered"|"read"|"undelivered"|"failed"|"canceled"|"suppressed"|"received"',
      }),
    },
  },
  listClientMessages: {
    summary: 'A client\'s conversation',
    description:
      'What was sent to the client and what it texted back (its replies are matched to it by the latest message to its number that the carrier accepted), newest first, ' +
      'one page at a time as `GET /messages`.',
    responses: {
      200: { description: 'One page.', schema: MessageList },
      400: listInvalid({}),
      404: notFound('No such client of the caller in this business.', { clientNotFound: 'Client not found' }),
    },
  },
  getMessage: {
    summary: 'Read a message and its status',
    responses: { 200: { description: 'The message.', schema: Message, example: SENT_MESSAGE_EXAMPLE }, 404: MESSAGE_NOT_FOUND },
  },
  cancelMessage: {
    summary: 'Cancel a scheduled message',
    description: 'Idempotent: canceling a canceled message answers 200 with it again. No body is needed.',
    responses: {
      200: {
        description: 'The message, now `canceled`.',
        schema: Message,
        example: { ...SENT_MESSAGE_EXAMPLE, status: 'canceled', attempts: 0, provider: null, provider_ref: null, dispatched_at: null, sent_at: null, canceled_at: '2026-11-22T05:14:13.625Z', canceled_by: { actor: 'user', reason: 'api' } },
      },
      404: MESSAGE_NOT_FOUND,
      409: { description: 'The message has already left `scheduled`.', examples: { tooLate: `Message ${MESSAGE_ID} can no longer be canceled: it is sent` } },
    },
  },
});
