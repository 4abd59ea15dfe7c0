import { operations, type ResponseDoc } from '../input/operation-docs';

/* What the document says of the carrier's callbacks (src/use-cases/input/operation-docs.ts). */

export const CARRIER_CALLBACKS_TAG =
  'Called by the configured carrier, not by users: no token, the carrier\'s own signature instead (Twilio `X-Twilio-Signature`, ' +
  'Telnyx Ed25519 with a five-minute tolerance, Vonage a signed JWT), checked over the public URL (`PUBLIC_BASE_URL` + path) and the raw body.';

export const CALLBACK_BODY = 'As the carrier sends it (Twilio: `application/x-www-form-urlencoded`; Telnyx and Vonage: JSON), read byte for byte for its signature; at most 100 kB.';

/** What every callback answers but its 429 (the unauthenticated doors' budgets). */
const CALLBACK_RESPONSES: Record<number, ResponseDoc> = {
  200: {
    description:
      'Taken (or, for a receipt of an unknown message, an older status or a repeat, ignored), so the carrier stops retrying. ' +
      'Twilio and the simulator get an empty TwiML `<Response/>` (no reply is sent); the others `{ "received": true }`.',
  },
  400: { description: 'The signed body is not one the carrier\'s parser can read; nothing changed.', examples: { unreadable: 'Unreadable carrier callback' } },
  403: { description: 'The carrier\'s signature is missing or wrong (or, for Telnyx, older than five minutes); nothing changed.', examples: { invalidSignature: 'Invalid signature' } },
  404: { description: 'Not the configured carrier, or no carrier is configured (`MESSAGE_PROVIDER=log|webhook`).', examples: { otherCarrier: 'No route for POST /providers/vonage/status' } },
  413: { description: 'The body is larger than 100 kB.', examples: { tooLarge: 'Request body is larger than 100 kB' } },
  500: { description: 'An unexpected error; the carrier retries.', examples: { internal: 'Internal server error' } },
  503: { description: 'PostgreSQL cannot be reached; nothing was done and the carrier retries.', examples: { unavailable: 'A backing service is unavailable; try again shortly' }, headers: ['Retry-After'] },
};

const RECEIPT =
  'Each send asks for its receipts at `<PUBLIC_BASE_URL>/providers/<carrier>/status/<message id>`. The receipt moves an outbound message ' +
  'forward only: `sending`/`sent` → `delivered` | `undelivered` | `failed` (final), recording `delivered_at`, `error_code` and the price when ' +
  'the carrier gives them, with the event `message.delivered`, `message.undelivered` or `message.failed`. WhatsApp\'s read receipt moves ' +
  '`sending`/`sent`/`delivered` on to `read` (`read_at`, and `delivered_at` too when that receipt was lost), with the event `message.read`; nothing moves a `read` message. A repeat, an older status, a ' +
  'status the service does not track or a message it does not know changes nothing and is still a 200. The message is found by the id in ' +
  'the URL (or the carrier\'s client reference), else by the carrier\'s message id; a message that already has another carrier id is not ' +
  'the receipt\'s.';

export const CARRIER_OPERATIONS = operations({
  postCarrierReceipt: { summary: 'A delivery or read receipt', description: RECEIPT, responses: CALLBACK_RESPONSES },
  postCarrierMessageReceipt: { summary: 'A delivery or read receipt for one message', description: RECEIPT, responses: CALLBACK_RESPONSES },
  postCarrierInbound: {
    summary: 'A message a client sent: SMS, MMS or WhatsApp',
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
    responses: CALLBACK_RESPONSES,
  },
});
