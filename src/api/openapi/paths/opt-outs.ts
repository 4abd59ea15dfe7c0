import { OPT_OUT_EXAMPLE as record, OPT_OUT_SCHEMAS, OptOutPage } from '../../../use-cases/opt-outs/contract';
import type { ApiPart } from '../components';
import { badParameters, inBusiness, json, operation, pageParameters, PREFIX, queryParameter, routeResponses } from '../components';
import { inlineSchema } from '../from-zod';

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
  contracts: OPT_OUT_SCHEMAS,
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
          200: json('One page.', inlineSchema(OptOutPage, 'output'), { example: { opt_outs: [record], next_cursor: null } }),
          400: badParameters('A query parameter is invalid; the detail names it.', {
            invalidPhone: 'Invalid phone: must be an E.164 phone number such as +14155550123',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
          }),
        }),
      }),
    }),
  },
};
