import type { ApiPart, OpenApiObject } from '../components';
import { closedObject, idParameter, inBusiness, NO_ROUTE_EXAMPLE, operation, pathParameter, PREFIX, problem, ref, routeResponses } from '../components';

/*
 * The channels of a message (docs/messages.md, "Channels: SMS, MMS and WhatsApp"): the request fields
 * `channel`, `media` and `template`, the fields every view of a message shows for them, the refusals they
 * add to `POST /messages`, and the route that streams an inbound message's files.
 */

const MEDIA_URL = { type: 'string', format: 'uri', pattern: '^https://', maxLength: 2048 };

/** `channel`, `media` and `template` of `POST /messages`; `POST /messages/batch` takes them once for every recipient. */
export const channelRequestProperties: OpenApiObject = {
  channel: {
    enum: ['sms', 'whatsapp', null],
    default: 'sms',
    description: 'How it goes: `sms` (absent or null: today\'s text message; with `media` an MMS) or `whatsapp`. The sender must carry it (else a 409 naming the sender).',
  },
  media: {
    type: ['array', 'null'],
    maxItems: 10,
    description:
      'Files the carrier fetches and sends with the text: at most 10 for `sms` (the message is then an MMS), at most one for `whatsapp`. ' +
      'Each URL `https` on a public host (no private, loopback or link-local address, no local name; the webhooks\' guard), at most 2,048 characters. ' +
      'A name is resolved at accept (2 s at most): one that resolves to such an address (`127.0.0.1.nip.io`) is a 400 naming it; one that does not resolve is left to the carrier. Another field of an item is a 400 `Unknown field: media[{n}].{name}`.',
    items: { type: 'object', required: ['url'], properties: { url: MEDIA_URL } },
    examples: [[{ url: 'https://cdn.example.com/receipts/A-1.jpg' }]],
  },
  template: {
    type: ['object', 'null'],
    description:
      'WhatsApp only (`"channel": "whatsapp"`): one of the caller\'s templates (`PUT /templates/{_id}`) and a value for each of its `variables`, no other. ' +
      'It goes only to a `client` whose WhatsApp consent is recorded (`PUT /clients/{_id}/consents/whatsapp`), and only once WhatsApp approved it; ' +
      'it may go outside WhatsApp\'s 24-hour window. Without `text_message` the template is the message (its `text_message` is the template\'s `body` with the values). ' +
      'With `text_message` too, the text goes if the window is open when the message is due, else the template instead.',
    required: ['_id'],
    properties: {
      _id: { ...ref('schemas', 'ResourceId'), description: 'The template\'s id.' },
      variables: {
        type: ['object', 'null'],
        description: 'Each variable the template declares, by name: a non-blank string of at most 1,024 characters.',
        additionalProperties: { type: 'string', minLength: 1, maxLength: 1024 },
      },
    },
    examples: [{ _id: 'order_shipped', variables: { 1: 'A-1' } }],
  },
};

/** What the channel fields add to the request's shape: text or a template, at most one file on WhatsApp, a template only on WhatsApp. */
export const channelRequestRules: OpenApiObject[] = [
  {
    anyOf: [
      { properties: { text_message: { type: 'string', pattern: '\\S' } }, required: ['text_message'] },
      { properties: { template: { type: 'object', additionalProperties: true } }, required: ['template'] },
    ],
  },
  { if: { properties: { channel: { const: 'whatsapp' } }, required: ['channel'] }, then: { properties: { media: { type: ['array', 'null'], maxItems: 1 } } } },
  { if: { properties: { template: { type: 'object' } }, required: ['template'] }, then: { properties: { channel: { const: 'whatsapp' } }, required: ['channel'] } },
];

/** The fields every view of a message has for its channel. */
export const channelMessageProperties: OpenApiObject = {
  channel: { enum: ['sms', 'whatsapp'], description: 'How it went or came: `sms` (an MMS when it has `media`) or `whatsapp`.' },
  media: {
    type: 'array',
    description:
      'Its files. Outbound: the URLs as the request gave them. Inbound: where this API streams each file (`GET /messages/{_id}/media/{n}`, so the carrier\'s ' +
      'credentials are never needed), with its type and size as the carrier reported them. Empty for none, and once its client was erased.',
    items: { oneOf: [ref('schemas', 'OutboundMedia'), ref('schemas', 'InboundMedia')] },
  },
  template: {
    oneOf: [ref('schemas', 'MessageTemplate'), { type: 'null' }],
    description: 'The WhatsApp template it names, with the caller\'s values (not the carrier\'s reference); null for none, and once its client was erased.',
  },
  read_at: { type: ['string', 'null'], format: 'date-time', description: 'When WhatsApp\'s read receipt said the client read it (status `read`).' },
};

/** What a plain SMS shows for them. */
export const SMS_CHANNEL_FIELDS = { channel: 'sms', media: [], template: null, read_at: null };

/** The 400s of `POST /messages` for the channel fields, checked after the phone and before `text_message`. */
export const CHANNEL_BAD_REQUESTS = {
  invalidChannel: 'Invalid channel: must be "sms" or "whatsapp"',
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
  mms: {
    summary: 'An MMS: an SMS with a picture',
    value: { message_type: 'text', client: 'c1', text_message: 'Here is your receipt.', media: [{ url: 'https://cdn.example.com/receipts/A-1.jpg' }] },
  },
};

/** The types a file is most often answered as; the carrier's own type is passed through, `application/octet-stream` when it gave none. */
const FILE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4', 'audio/mpeg', 'audio/ogg', 'application/pdf', 'text/vcard', 'application/octet-stream', '*/*'];
const fileSchema = { description: 'The file\'s bytes, as the carrier holds them.' };
const inboundMessageIdParameter = idParameter('The inbound message\'s id. One of another user or business is the same 404 as a missing one.', '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4');
const mediaIndexParameter = pathParameter('n', 'The file\'s place in the message\'s `media`, from 0; anything else is a 404 `Media not found`.', { type: 'string' }, '0');

export const messageChannelsApi: ApiPart = {
  tags: [],
  schemas: {
    OutboundMedia: closedObject(['url'], { url: { ...MEDIA_URL, description: 'As the request gave it; the carrier fetched it from there.' } }),
    InboundMedia: closedObject(['url', 'content_type', 'size'], {
      url: {
        type: 'string',
        pattern: '^/ext/v2/[^/]+/messages/[^/]+/media/[0-9]+$',
        description: 'This API\'s path of the file: `GET` it with the same token.',
        examples: ['/ext/v2/acme/messages/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4/media/0'],
      },
      content_type: { type: ['string', 'null'], description: 'Its type as the carrier reported it.', examples: ['image/jpeg'] },
      size: { type: ['integer', 'null'], minimum: 0, description: 'Its size in bytes, when the carrier reported it.' },
    }),
    MessageTemplate: closedObject(['_id', 'variables'], {
      _id: ref('schemas', 'ResourceId'),
      variables: { type: 'object', additionalProperties: { type: 'string' }, description: 'The values the message was sent with, by variable name.', examples: [{ 1: 'A-1' }] },
    }),
  },
  paths: {
    [`${PREFIX}/messages/{_id}/media/{n}`]: inBusiness({
      get: operation('getMessageMedia', 'Messages', 'A file an inbound message carried', {
        description:
          'Streams the `n`-th file (from 0) of the caller\'s inbound MMS or WhatsApp message from the carrier, fetched with the credentials of the account ' +
          'of the number it was sent to (even when that number was retired from the business since): the CRM never needs them. Nothing is stored here; ' +
          'the carrier keeps the file as long as it keeps it.',
        responses: routeResponses(false, {
          200: {
            description: 'The file, with the content type the carrier gave it (`application/octet-stream` when it gave none).',
            headers: {
              'Content-Disposition': { description: 'Always a download.', required: true, schema: { type: 'string', const: 'attachment' } },
              'Cache-Control': { description: 'Never kept by a cache.', required: true, schema: { type: 'string', const: 'private, no-store' } },
              'Content-Length': { description: 'Its size, when the carrier reported it.', schema: { type: 'integer', minimum: 0 } },
            },
            content: Object.fromEntries(FILE_TYPES.map((type) => [type, { schema: fileSchema }])),
          },
          404: problem(404, 'No such message of the caller, no `n`-th file of an inbound message, or the carrier no longer has it.', {
            messageNotFound: 'Message not found',
            mediaNotFound: 'Media not found',
            mediaGone: 'Media no longer available at the carrier',
            ...NO_ROUTE_EXAMPLE,
          }),
          502: problem(502, 'The carrier has the file, but it is larger than this service streams (100 MiB, WhatsApp\'s largest document): fetch it from the carrier\'s console.', {
            mediaTooLarge: 'Media file is larger than 100 MiB',
          }),
          503: problem(
            503,
            'The carrier cannot be reached (try again after `Retry-After` seconds), or PostgreSQL cannot.',
            { carrierUnreachable: 'The carrier could not be reached: try again', unavailable: 'A backing service is unavailable; try again shortly' },
            ['Retry-After'],
          ),
        }),
      }),
    }, inboundMessageIdParameter, mediaIndexParameter),
  },
};
