import { z } from 'zod';
import { DateTime, page } from '../input/contract';

/* The contract of opt-outs: the view of one record and of a page of them. The OpenAPI document is generated from these. */

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
    channel: z.enum(['sms', 'whatsapp']).meta({ description: 'What it blocks: `sms` (SMS and MMS) or `whatsapp`.' }),
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

export const OPT_OUT_SCHEMAS = { responses: [OptOut] };
