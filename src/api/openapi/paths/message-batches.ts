import type { ApiPart } from '../components';
import { idParameter, inBusiness, pageSchema, PREFIX, ref } from '../components';
import { pageParameters } from '../from-zod';
import { MESSAGE_BATCH_SCHEMAS } from '../../../use-cases/messages/batch-contract';
import { BATCH_REFUSALS, CAMPAIGNS_TAG, MESSAGE_BATCH_OPERATIONS as ops, NONE_ACCEPTED } from '../../../use-cases/messages/batch-operations';
import { operationOf, type Wiring } from '../operation';
import { idempotencyKeyParameter } from './messages';

const batchIdParameter = idParameter('The batch\'s id (`batch_id`). One of another user or business is the same 404 as a missing one.', '0d9c8a4e-5a3b-4f7e-9d51-2b7c2f0e6a11');
const op = (operationId: keyof typeof ops, wiring: Wiring = {}) => operationOf(operationId, 'Campaigns', ops[operationId], wiring);
const badRequest = (detail: string, extra = {}) => ({ summary: detail, value: { type: '/problems/invalid-request', title: 'Bad Request', status: 400, detail, ...extra } });

/** A campaign's 400: one problem for the whole request, or (none accepted) each recipient's. */
const BATCH_REFUSED = {
  description: 'The request is invalid as a whole, or no recipient could be accepted (then with each recipient\'s problem).',
  content: {
    'application/problem+json': {
      schema: { oneOf: [ref('schemas', 'BadRequestProblem'), ref('schemas', 'MessageBatchRefusedProblem')] },
      examples: {
        ...Object.fromEntries(Object.entries(BATCH_REFUSALS).map(([name, detail]) => [name, badRequest(detail)])),
        noneAccepted: badRequest(NONE_ACCEPTED.detail, { batch_id: NONE_ACCEPTED.batch_id, results: NONE_ACCEPTED.results }),
      },
    },
  },
};

export const messageBatchesApi: ApiPart = {
  tags: [{ name: 'Campaigns', description: CAMPAIGNS_TAG }],
  contracts: MESSAGE_BATCH_SCHEMAS,
  paths: {
    [`${PREFIX}/messages/batch`]: inBusiness({
      post: op('sendMessageBatch', {
        body: true,
        parameters: [idempotencyKeyParameter('As for `POST /messages`: the same key with the same request answers the first answer again and never sends twice; with another request, a 422.')],
        responses: { 400: BATCH_REFUSED },
      }),
    }),
    [`${PREFIX}/messages/batches`]: inBusiness({
      get: op('listMessageBatches', { parameters: pageParameters('Batches a page, 1-100 (50 by default).'), schemas: { 200: pageSchema('batches', ref('schemas', 'MessageBatch')) } }),
    }),
    [`${PREFIX}/messages/batch/{_id}`]: inBusiness({ get: op('getMessageBatch') }, batchIdParameter),
    [`${PREFIX}/messages/batch/{_id}/cancel`]: inBusiness({ post: op('cancelMessageBatch', { body: true }) }, batchIdParameter),
  },
};
