import { UNMATCHED_INBOUND_SCHEMAS } from '../../../use-cases/unmatched-inbound/contract';
import { UNMATCHED_INBOUND_OPERATIONS as ops } from '../../../use-cases/unmatched-inbound/operations';
import type { ApiPart } from '../components';
import { inBusiness, PREFIX } from '../components';
import { pageParameters } from '../from-zod';
import { operationOf } from '../operation';

export const unmatchedInboundApi: ApiPart = {
  tags: [],
  contracts: UNMATCHED_INBOUND_SCHEMAS,
  paths: {
    [`${PREFIX}/unmatched-inbound`]: inBusiness({
      get: operationOf('listUnmatchedReplies', 'Messages', ops.listUnmatchedReplies, { parameters: pageParameters('Texts a page, 1-100 (50 by default).') }),
    }),
  },
};
