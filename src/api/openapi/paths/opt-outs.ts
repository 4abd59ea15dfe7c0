import type { ApiPart } from '../components';
import { badParameters, inBusiness, json, operation, pageParameters, pageSchema, PREFIX, queryParameter, ref, routeResponses } from '../components';

const record = {
  phone: '+14155550142',
  sender: '+15550001000',
  channel: 'sms',
  status: 'opted_out',
  source: 'keyword',
  detail: 'STOP',
  opted_out_at: '2026-11-23T21:30:00.000Z',
  opted_in_at: null,
  updated_at: '2026-11-23T21:30:00.012Z',
};

export const optOutsApi: ApiPart = {
  tags: [
    {
      name: 'Opt-outs',
      description:
        'Whether a number may be texted from this deployment\'s sender. A recipient texting `STOP`, `STOPALL`, `UNSUBSCRIBE`, `CANCEL`, `END`, `QUIT`, `REVOKE` or ' +
        '`OPTOUT` (the whole text, any case) opts out, as does the carrier refusing a send because the recipient unsubscribed; `START`, `UNSTOP` or `YES` opts back in. ' +
        'Only the recipient can opt back in. Each record is of one channel: a STOP by SMS or MMS opts out of SMS and MMS, one on WhatsApp out of WhatsApp only. ' +
        'While opted out, `POST /messages` to the number on that channel is a 409 and a message already scheduled on it ends `suppressed`.',
    },
  ],
  schemas: {
    OptOut: {
      type: 'object',
      required: ['phone', 'sender', 'channel', 'status', 'source', 'detail', 'opted_out_at', 'opted_in_at', 'updated_at'],
      additionalProperties: false,
      properties: {
        phone: { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$' },
        sender: { type: 'string', description: 'The number or messaging service the record is kept against (the carrier\'s sender).' },
        channel: { enum: ['sms', 'whatsapp'], description: 'What it blocks: `sms` (SMS and MMS) or `whatsapp`.' },
        status: { enum: ['opted_out', 'opted_in'] },
        source: { enum: ['keyword', 'carrier'], description: '`keyword`: the recipient texted it; `carrier`: the carrier refused a send as unsubscribed.' },
        detail: { type: ['string', 'null'], description: 'The keyword as received (upper-cased), or the carrier\'s error code.', examples: ['STOP', '21610'] },
        opted_out_at: ref('schemas', 'DateTime'),
        opted_in_at: { type: ['string', 'null'], format: 'date-time', description: 'When the recipient opted back in; null while opted out.' },
        updated_at: ref('schemas', 'DateTime'),
      },
      examples: [record],
    },
  },
  paths: {
    [`${PREFIX}/opt-outs`]: inBusiness({
      get: operation('listOptOuts', 'Opt-outs', 'Opt-out records of the caller\'s numbers', {
        description:
          'The records of numbers the caller has texted in this business, by phone, sender and channel: with a message the carrier accepted (`sent`, `delivered`, `undelivered`, ' +
          'or `failed` by a receipt after it was accepted), or one the carrier refused because the number had unsubscribed while the record is that refusal\'s. ' +
          'A client at the number, a reply from it or a send refused for another reason is not enough: any other number is answered as an unknown one, ' +
          'so nothing is learnt about other businesses\' contacts.',
        parameters: [
          queryParameter('phone', 'Only this number (E.164; encode `+` as `%2B`, though a leading space where a `+` was is read as one).', { type: 'string' }, '+14155550142'),
          ...pageParameters(undefined, 300),
        ],
        responses: routeResponses(false, {
          200: json('One page.', pageSchema('opt_outs', ref('schemas', 'OptOut')), { example: { opt_outs: [record], next_cursor: null } }),
          400: badParameters('A query parameter is invalid; the detail names it.', {
            invalidPhone: 'Invalid phone: must be an E.164 phone number such as +14155550123',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
          }),
        }),
      }),
    }),
  },
};
