import { CARRIER_NAMES } from '../../../carriers/types';
import { CarrierCallbackReceived } from '../../../use-cases/carriers/contract';
import { type ApiPart, type OpenApiObject, operation, pathParameter, problem } from '../components';
import { inlineSchema } from '../from-zod';
import { publicDoorLimited } from './public-door-limit';

const carrierParameter = pathParameter('carrier', 'The configured carrier (`MESSAGE_PROVIDER`); any other name is a 404.', { enum: [...CARRIER_NAMES] });

const body = {
  required: true,
  description: 'As the carrier sends it (Twilio: `application/x-www-form-urlencoded`; Telnyx and Vonage: JSON), read byte for byte for its signature; at most 100 kB.',
  content: { '*/*': { schema: {} } },
};

const answered = {
  description:
    'Taken (or, for a receipt of an unknown message, an older status or a repeat, ignored), so the carrier stops retrying. ' +
    'Twilio and the simulator get an empty TwiML `<Response/>` (no reply is sent); the others `{ "received": true }`.',
  content: {
    'application/json': { schema: inlineSchema(CarrierCallbackReceived, 'output'), example: { received: true } },
    'text/xml': { schema: { type: 'string' }, example: '<?xml version="1.0" encoding="UTF-8"?><Response/>' },
  },
};

const refusals = {
  400: problem(400, 'The signed body is not one the carrier\'s parser can read; nothing changed.', { unreadable: 'Unreadable carrier callback' }),
  403: problem(403, 'The carrier\'s signature is missing or wrong (or, for Telnyx, older than five minutes); nothing changed.', { invalidSignature: 'Invalid signature' }),
  404: problem(404, 'Not the configured carrier, or no carrier is configured (`MESSAGE_PROVIDER=log|webhook`).', { otherCarrier: 'No route for POST /providers/vonage/status' }),
  413: problem(413, 'The body is larger than 100 kB.', { tooLarge: 'Request body is larger than 100 kB' }),
  429: publicDoorLimited(' The carrier retries.'),
  500: problem(500, 'An unexpected error; the carrier retries.', { internal: 'Internal server error' }),
  503: problem(503, 'PostgreSQL cannot be reached; nothing was done and the carrier retries.', { unavailable: 'A backing service is unavailable; try again shortly' }, ['Retry-After']),
};

function receiptOperation(operationId: string, withId: boolean): OpenApiObject {
  return {
    post: {
      operationId,
      tags: ['Carrier callbacks'],
      summary: withId ? 'A delivery or read receipt for one message' : 'A delivery or read receipt',
      description:
        'Each send asks for its receipts at `<PUBLIC_BASE_URL>/providers/<carrier>/status/<message id>`. The receipt moves an outbound message ' +
        'forward only: `sending`/`sent` → `delivered` | `undelivered` | `failed` (final), recording `delivered_at`, `error_code` and the price when ' +
        'the carrier gives them, with the event `message.delivered`, `message.undelivered` or `message.failed`. WhatsApp\'s read receipt moves ' +
        '`sending`/`sent`/`delivered` on to `read` (`read_at`, and `delivered_at` too when that receipt was lost), with the event `message.read`; nothing moves a `read` message. A repeat, an older status, a ' +
        'status the service does not track or a message it does not know changes nothing and is still a 200. The message is found by the id in ' +
        'the URL (or the carrier\'s client reference), else by the carrier\'s message id; a message that already has another carrier id is not ' +
        'the receipt\'s.',
      security: [],
      parameters: withId
        ? [carrierParameter, pathParameter('messageId', 'Our message id, as the send named it.', { type: 'string' })]
        : [carrierParameter],
      requestBody: body,
      responses: { 200: answered, ...refusals },
    },
  };
}

export const providersApi: ApiPart = {
  tags: [
    {
      name: 'Carrier callbacks',
      description:
        'Called by the configured carrier, not by users: no token, the carrier\'s own signature instead (Twilio `X-Twilio-Signature`, ' +
        'Telnyx Ed25519 with a five-minute tolerance, Vonage a signed JWT), checked over the public URL (`PUBLIC_BASE_URL` + path) and the raw body.',
    },
  ],
  paths: {
    '/providers/{carrier}/status': receiptOperation('postCarrierReceipt', false),
    '/providers/{carrier}/status/{messageId}': receiptOperation('postCarrierMessageReceipt', true),
    '/providers/{carrier}/inbound': {
      post: operation('postCarrierInbound', 'Carrier callbacks', 'A message a client sent: SMS, MMS or WhatsApp', {
        description:
          'Stored once per carrier message id (a repeated callback changes nothing), with its `channel` and the carrier\'s references of its files (read through ' +
          '`GET /messages/{_id}/media/{n}`); an inbound WhatsApp message opens WhatsApp\'s 24-hour window again. Matched to the business, user and client of the latest message ' +
          'to that number from this deployment\'s sender (any business) that the carrier accepted (`sent`, `delivered`, or `sending` with its acceptance ' +
          'recorded; never one it refused or reported `undelivered` or `failed`): stored as an `inbound` message, `received`, with the event ' +
          '`message.received` naming the client\'s assignments in force at that instant. A text that answers no message is kept apart and counted ' +
          '(`crm_inbound_unmatched_total`), not dropped. Keywords (the whole text, trimmed, any case) are also ordinary replies the owner sees, and besides: ' +
          '`STOP`, `STOPALL`, `UNSUBSCRIBE`, `CANCEL`, `END`, `QUIT`, `REVOKE`, `OPTOUT` opt the number out of this sender and get one confirmation; ' +
          '`START`, `UNSTOP`, `YES` opt it back in and get one confirmation; `HELP`, `INFO` get `SMS_HELP_TEXT`. Keywords act on the channel they came by ' +
          '(by SMS or MMS: SMS and MMS; on WhatsApp: WhatsApp only), and the confirmation goes back by it.',
        security: [],
        parameters: [carrierParameter],
        requestBody: body,
        responses: { 200: answered, ...refusals },
      }),
    },
  },
};
