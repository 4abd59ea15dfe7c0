import { badParameters, operations, PAGE_ONLY_REFUSALS } from '../input/operation-docs';
import { UNMATCHED_REPLY_EXAMPLE as text, UnmatchedReplyPage } from './contract';

/* What the document says of a business's unmatched texts (src/use-cases/input/operation-docs.ts). */

export const UNMATCHED_INBOUND_OPERATIONS = operations({
  listUnmatchedReplies: {
    summary: 'Texts to the business\'s numbers that no message explains',
    description:
      'Replies kept unmatched because several users of the business texted the phone from that number lately (`ambiguous`), or none did, newest first. ' +
      'Any user of the business may list them: they are the business\'s, though no user\'s event feed shows them. Texts to the deployment\'s shared sender are the operator\'s only.',
    responses: {
      200: { description: 'One page, newest first.', schema: UnmatchedReplyPage, example: { texts: [text], next_cursor: null } },
      400: badParameters('`limit` or `cursor` is not valid.', PAGE_ONLY_REFUSALS),
    },
  },
});
