import type { ApiPart } from '../components';
import { badParameters, inBusiness, json, operation, pageParameters, pageSchema, PREFIX, ref, routeResponses } from '../components';

const text = {
  _id: '6d7e8f90-1a2b-4c3d-9e8f-0a1b2c3d4e5f',
  provider: 'twilio',
  from: '+14155550177',
  to: '+16285550001',
  text: 'My account PIN is 4412',
  ambiguous: true,
  received_at: '2026-11-25T17:05:00.000Z',
  created_at: '2026-11-25T17:05:00.120Z',
};

export const unmatchedInboundApi: ApiPart = {
  tags: [],
  schemas: {
    UnmatchedReply: {
      type: 'object',
      required: Object.keys(text),
      additionalProperties: false,
      description: 'A text to one of the business\'s numbers that no message of one of its users explains: kept, counted, and told to none of its users as an event.',
      properties: {
        _id: { type: 'string', format: 'uuid' },
        provider: { type: 'string' },
        from: { type: 'string', description: 'The number that texted.' },
        to: { type: 'string', description: 'The business\'s number it was sent to.' },
        text: { type: 'string' },
        ambiguous: {
          type: 'boolean',
          description: '`true`: more than one user of the business texted the phone from that number within `SHARED_SENDER_MATCH_DAYS`, so the reply may be any of theirs; `false`: none did.',
        },
        received_at: ref('schemas', 'DateTime'),
        created_at: ref('schemas', 'DateTime'),
      },
      examples: [text],
    },
  },
  paths: {
    [`${PREFIX}/unmatched-inbound`]: inBusiness({
      get: operation('listUnmatchedReplies', 'Messages', 'Texts to the business\'s numbers that no message explains', {
        description:
          'Replies kept unmatched because several users of the business texted the phone from that number lately (`ambiguous`), or none did, newest first. ' +
          'Any user of the business may list them: they are the business\'s, though no user\'s event feed shows them. Texts to the deployment\'s shared sender are the operator\'s only.',
        parameters: pageParameters('Texts a page, 1-100 (50 by default).'),
        responses: routeResponses(false, {
          200: json('One page, newest first.', pageSchema('texts', ref('schemas', 'UnmatchedReply')), { example: { texts: [text], next_cursor: null } }),
          400: badParameters('`limit` or `cursor` is not valid.', {
            invalidLimit: 'Invalid limit: must be a whole number from 1 to 100',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
          }),
        }),
      }),
    }),
  },
};
