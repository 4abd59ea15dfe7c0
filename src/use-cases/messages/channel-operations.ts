import { notFound, operations } from '../input/operation-docs';

/*
 * The channels of a message (docs/messages.md, "Channels: SMS, MMS and WhatsApp") as the document tells them:
 * what every view of a message shows for them, the refusals they add to `POST /messages`, its examples on
 * each channel, and the route that streams an inbound message's files.
 */

/** What a plain SMS shows for them. */
export const SMS_CHANNEL_FIELDS = { channel: 'sms', media: [], template: null, read_at: null };

/** The 400s of `POST /messages` for the channel fields, checked after the phone and before `text_message`. */
export const CHANNEL_BAD_REQUESTS = {
  invalidChannel: 'Invalid channel: must be "sms", "whatsapp" or "rcs"',
  invalidMedia: 'Invalid media: must be an array of at most 10 objects { "url" } for sms',
  invalidWhatsAppMedia: 'Invalid media: must be an array of at most 1 objects { "url" } for whatsapp',
  invalidMediaUrl: 'Invalid media[0].url: must be a public https URL of at most 2048 characters',
  mediaUrlResolvesPrivate: 'Invalid media[0].url: must be a public https URL; 127.0.0.1.nip.io resolves to 127.0.0.1, a private, loopback or link-local address',
  templateNotWhatsApp: 'Invalid template: only a WhatsApp message ("channel": "whatsapp") sends a template',
  invalidTemplate: 'Invalid template: must be an object such as {"_id": "reminder", "variables": {"1": "Tuesday"}}',
  invalidTemplateId: 'Invalid template._id: must be a template id string',
  templateNotFound: 'Template reminder not found',
  invalidVariables: 'Invalid template.variables: must be an object of variable names to values',
  missingVariables: 'Invalid template.variables: missing 2',
  unknownVariables: 'Invalid template.variables: unknown 3',
  invalidVariable: 'Invalid template.variables.1: must be a non-empty string of at most 1024 characters',
  suggestionsNotRcs: 'Invalid suggestions: only an RCS message ("channel": "rcs") carries suggested replies',
  invalidSuggestions: 'Invalid suggestions: must be an array of at most 10 objects { "text", "postback_data"? }',
  invalidSuggestionText: 'Invalid suggestions[0].text: must be a non-empty string of at most 25 characters',
};

/** The 409s of `POST /messages` (and of a campaign's recipient) for the channel's rules, checked once the sender is chosen. */
export const CHANNEL_CONFLICTS = {
  optedOutOfWhatsApp: 'Recipient has opted out of WhatsApp messages',
  senderLacksWhatsApp: 'Sender +15005550006 does not carry WhatsApp',
  senderLacksMms: 'Sender +15005550006 does not carry MMS',
  senderLacksSms: 'Sender +15005550006 does not carry SMS',
  templateToPhone: 'A WhatsApp template goes only to a client who opted in to WhatsApp: name the client',
  noConsent: 'Client c1 has not opted in to WhatsApp: record its consent first (PUT /clients/c1/consents/whatsapp)',
  notApproved: 'Template order_shipped is not approved by WhatsApp (pending)',
  outsideWindow: "Outside WhatsApp's 24-hour window: send an approved template",
  noRcsSender: 'No RCS sender: +15005550006 carries no RCS; register a business number whose channels include rcs, with its rcs_agent',
};

/** Request examples of `POST /messages` on each channel. */
export const CHANNEL_REQUEST_EXAMPLES = {
  whatsappReply: {
    summary: 'A WhatsApp reply, inside the 24-hour window of the client\'s last WhatsApp message',
    value: { message_type: 'text', client: 'c1', channel: 'whatsapp', text_message: 'Yes, we are open until 6 pm today.' },
  },
  whatsappTemplate: {
    summary: 'A WhatsApp template to a client who opted in, with its variables',
    value: { message_type: 'text', client: 'c1', channel: 'whatsapp', template: { _id: 'order_shipped', variables: { 1: 'A-1' } } },
  },
  rcs: {
    summary: 'RCS with suggested replies, from the business\'s RCS sender; the carrier falls back to SMS where the handset takes no RCS',
    value: { message_type: 'text', client: 'c1', channel: 'rcs', text_message: 'Your table for two is booked for 7 pm. Still coming?', suggestions: [{ text: 'Yes', postback_data: 'confirm' }, { text: 'Cancel', postback_data: 'cancel' }] },
  },
  mms: {
    summary: 'An MMS: an SMS with a picture',
    value: { message_type: 'text', client: 'c1', text_message: 'Here is your receipt.', media: [{ url: 'https://cdn.example.com/receipts/A-1.jpg' }] },
  },
};

export const CHANNEL_OPERATIONS = operations({
  getMessageMedia: {
    summary: 'A file an inbound message carried',
    description:
      'Streams the `n`-th file (from 0) of the caller\'s inbound MMS or WhatsApp message from the carrier, fetched with the credentials of the account ' +
      'of the number it was sent to (even when that number was retired from the business since): the CRM never needs them. Nothing is stored here; ' +
      'the carrier keeps the file as long as it keeps it.',
    responses: {
      200: { description: 'The file, with the content type the carrier gave it (`application/octet-stream` when it gave none).' },
      404: notFound('No such message of the caller, no `n`-th file of an inbound message, or the carrier no longer has it.', {
        messageNotFound: 'Message not found',
        mediaNotFound: 'Media not found',
        mediaGone: 'Media no longer available at the carrier',
      }),
      502: {
        description: 'The carrier has the file, but it is larger than this service streams (100 MiB, WhatsApp\'s largest document): fetch it from the carrier\'s console.',
        examples: { mediaTooLarge: 'Media file is larger than 100 MiB' },
      },
      503: {
        description: 'The carrier cannot be reached (try again after `Retry-After` seconds), or PostgreSQL cannot.',
        examples: { carrierUnreachable: 'The carrier could not be reached: try again', unavailable: 'A backing service is unavailable; try again shortly' },
        headers: ['Retry-After'],
      },
    },
  },
});
