import { UNMATCHED_INBOUND_SCHEMAS, UNMATCHED_REPLY_EXAMPLE as text, UnmatchedReplyPage } from '../../../use-cases/unmatched-inbound/contract';
import type { ApiPart } from '../components';
import { badParameters, inBusiness, json, operation, pageParameters, PREFIX, routeResponses } from '../components';
import { inlineSchema } from '../from-zod';

export const unmatchedInboundApi: ApiPart = {
  tags: [],
  contracts: UNMATCHED_INBOUND_SCHEMAS,
  paths: {
    [`${PREFIX}/unmatched-inbound`]: inBusiness({
      get: operation('listUnmatchedReplies', 'Messages', 'Texts to the business\'s numbers that no message explains', {
        description:
          'Replies kept unmatched because several users of the business texted the phone from that number lately (`ambiguous`), or none did, newest first. ' +
          'Any user of the business may list them: they are the business\'s, though no user\'s event feed shows them. Texts to the deployment\'s shared sender are the operator\'s only.',
        parameters: pageParameters('Texts a page, 1-100 (50 by default).'),
        responses: routeResponses(false, {
          200: json('One page, newest first.', inlineSchema(UnmatchedReplyPage, 'output'), { example: { texts: [text], next_cursor: null } }),
          400: badParameters('`limit` or `cursor` is not valid.', {
            invalidLimit: 'Invalid limit: must be a whole number from 1 to 100',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
          }),
        }),
      }),
    }),
  },
};
