import { badParameters, operations } from '../input/operation-docs';
import { OPT_OUT_EXAMPLE as record, OptOutPage } from './contract';

/* What the document says of the opt-outs' list (src/use-cases/input/operation-docs.ts). */

export const OPT_OUTS_TAG =
  'Whether a number may be texted from this deployment\'s sender. A recipient texting `STOP`, `STOPALL`, `UNSUBSCRIBE`, `CANCEL`, `END`, `QUIT`, `REVOKE` or ' +
  '`OPTOUT` (the whole text, any case) opts out, as does the carrier refusing a send because the recipient unsubscribed; `START`, `UNSTOP` or `YES` opts back in. ' +
  'Only the recipient can opt back in. Each record is of one channel: a STOP by SMS or MMS opts out of SMS and MMS, one on WhatsApp out of WhatsApp only. ' +
  'While opted out, `POST /messages` to the number on that channel is a 409 and a message already scheduled on it ends `suppressed`.';

export const OPT_OUT_OPERATIONS = operations({
  listOptOuts: {
    summary: 'Opt-out records of the caller\'s numbers',
    description:
      'The records of numbers the caller has texted in this business, by phone, sender and channel: with a message the carrier accepted (`sent`, `delivered`, `undelivered`, ' +
      'or `failed` by a receipt after it was accepted), or one the carrier refused because the number had unsubscribed while the record is that refusal\'s. ' +
      'A client at the number, a reply from it or a send refused for another reason is not enough: any other number is answered as an unknown one, ' +
      'so nothing is learnt about other businesses\' contacts.',
    responses: {
      200: { description: 'One page.', schema: OptOutPage, example: { opt_outs: [record], next_cursor: null } },
      400: badParameters('A query parameter is invalid; the detail names it.', {
        invalidPhone: 'Invalid phone: must be an E.164 phone number such as +14155550123',
        invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
      }),
    },
  },
});
