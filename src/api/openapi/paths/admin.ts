import type { ApiPart } from '../components';
import { BUSINESS_NAME_SCHEMA, common, pathParameter } from '../components';
import { pageParameters } from '../from-zod';
import { NUMBER_SCHEMAS } from '../../../use-cases/numbers/contract';
import { OPERATOR_MESSAGE_EXAMPLE as operatorMessage, OPERATOR_SCHEMAS } from '../../../use-cases/operator/contract';
import { OPERATOR_OPERATIONS as ops, OPERATOR_TAG } from '../../../use-cases/operator/operations';
import { operationOf, type Wiring } from '../operation';

const businessParameter = pathParameter('business', 'The business (`{businessname}` of the API\'s paths).', BUSINESS_NAME_SCHEMA, 'acme');
const numberParameter = pathParameter('e164', 'The number, E.164 (encode `+` as `%2B`).', { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$' }, '+15005550006');
const messageIdParameter = pathParameter('id', 'The message\'s id, as in its workflow id `message/{business}/{id}`.', { type: 'string' }, operatorMessage._id);
const shared = { 401: common[401], 500: common[500], 503: common[503] };
const op = (operationId: keyof typeof ops, wiring: Wiring = {}) => operationOf(operationId, 'Operator', ops[operationId], { security: [{ adminAuth: [] }], shared, ...wiring });

export const adminApi: ApiPart = {
  tags: [{ name: 'Operator', description: OPERATOR_TAG }],
  contracts: { requests: NUMBER_SCHEMAS.requests, responses: [...OPERATOR_SCHEMAS.responses, ...NUMBER_SCHEMAS.responses] },
  paths: {
    '/admin/messages/{id}': { parameters: [messageIdParameter], get: op('getMessageForOperator') },
    '/admin/unmatched-inbound': { get: op('listUnmatchedInbound', { parameters: pageParameters('Texts a page, 1-100 (50 by default).') }) },
    '/admin/businesses/{business}/numbers': { parameters: [businessParameter], get: op('listBusinessNumbers') },
    '/admin/businesses/{business}/numbers/{e164}': {
      parameters: [businessParameter, numberParameter],
      put: op('putBusinessNumber', { shared: { ...shared, 413: common[413], 415: common[415] } }),
      delete: op('retireBusinessNumber'),
    },
    '/admin/businesses/{business}/numbers/{e164}/registration/refresh': { parameters: [businessParameter, numberParameter], post: op('refreshNumberRegistration') },
    '/admin/numbers': {
      get: op('listNumbersAcrossBusinesses', {
        parameters: [{ name: 'can_send', in: 'query', required: false, description: '`false`: the numbers that cannot send; `true`: those that can.', schema: { type: 'string', enum: ['true', 'false'] } }],
      }),
    },
  },
};
