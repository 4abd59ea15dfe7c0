import { z } from 'zod';
import { DateTime, page, uuid } from '../input/contract';

/*
 * The contract of `GET /unmatched-inbound`: the view of a text no message explains, and of a page of
 * them. The use case lives with the messages (messages/unmatched-inbound.ts). The OpenAPI document is
 * generated from these.
 */

/** One UnmatchedReply, as the document shows it. */
export const UNMATCHED_REPLY_EXAMPLE = {
  _id: '6d7e8f90-1a2b-4c3d-9e8f-0a1b2c3d4e5f',
  provider: 'twilio',
  from: '+14155550177',
  to: '+16285550001',
  text: 'My account PIN is 4412',
  ambiguous: true,
  received_at: '2026-11-25T17:05:00.000Z',
  created_at: '2026-11-25T17:05:00.120Z',
};

export const UnmatchedReply = z
  .strictObject({
    _id: uuid(),
    provider: z.string(),
    from: z.string().meta({ description: 'The number that texted.' }),
    to: z.string().meta({ description: 'The business\'s number it was sent to.' }),
    text: z.string(),
    ambiguous: z.boolean().meta({
      description: '`true`: more than one user of the business texted the phone from that number within `SHARED_SENDER_MATCH_DAYS`, so the reply may be any of theirs; `false`: none did.',
    }),
    received_at: DateTime,
    created_at: DateTime,
  })
  .meta({
    id: 'UnmatchedReply',
    description: 'A text to one of the business\'s numbers that no message of one of its users explains: kept, counted, and told to none of its users as an event.',
    examples: [UNMATCHED_REPLY_EXAMPLE],
  });

export const UnmatchedReplyPage = page('texts', UnmatchedReply).strict();

export const UNMATCHED_INBOUND_SCHEMAS = { responses: [UnmatchedReply] };
