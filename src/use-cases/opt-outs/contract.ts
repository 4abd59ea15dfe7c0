import { z } from 'zod';
import { DateTime, page } from '../input/contract';
import { phoneNumber } from '../input/validation';

/* The contract of opt-outs: the query of their list, the view of one record and of a page of them. The OpenAPI document is generated from these. */

/** One OptOut, as the document shows it. */
export const OPT_OUT_EXAMPLE = {
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

export const OptOut = z
  .strictObject({
    phone: z.string().regex(/^\+[1-9][0-9]{6,14}$/),
    sender: z.string().meta({ description: 'The number or messaging service the record is kept against (the carrier\'s sender).' }),
    channel: z.enum(['sms', 'whatsapp']).meta({ description: 'What it blocks: `sms` (SMS and MMS, and RCS with its SMS fallback: a STOP on either is kept here) or `whatsapp`.' }),
    status: z.enum(['opted_out', 'opted_in']),
    source: z.enum(['keyword', 'carrier']).meta({ description: '`keyword`: the recipient texted it; `carrier`: the carrier refused a send as unsubscribed.' }),
    detail: z.string().nullable().meta({ description: 'The keyword as received (upper-cased), or the carrier\'s error code.', examples: ['STOP', '21610'] }),
    opted_out_at: DateTime,
    opted_in_at: z.string().nullable().meta({ format: 'date-time', description: 'When the recipient opted back in; null while opted out.' }),
    updated_at: DateTime,
  })
  .meta({
    id: 'OptOut',
    examples: [OPT_OUT_EXAMPLE],
  });

export const OptOutPage = page('opt_outs', OptOut).strict();

/** `GET /opt-outs`'s query. */
export const OptOutListQuery = z.object({
  // A `+` left unencoded in a query string arrives as a space.
  phone: z
    .string()
    .transform((raw) => raw.replace(/^ (?=\d)/, '+'))
    .pipe(phoneNumber)
    .optional()
    .meta({ description: 'Only this number (E.164; encode `+` as `%2B`, though a leading space where a `+` was is read as one).', examples: ['+14155550142'] }),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(300).optional().meta({ description: 'The `next_cursor` of the previous page.' }),
});

export const OPT_OUT_SCHEMAS = { responses: [OptOut] };
