import type { ApiPart } from '../components';
import { badParameters, idParameter, inBusiness, json, NO_ROUTE_EXAMPLE, operation, pageParameters, pageSchema, PREFIX, problem, ref, routeResponses } from '../components';
import { MESSAGE_BATCH_SCHEMAS } from '../../../use-cases/messages/batch-contract';

const batchNotFound = { batchNotFound: 'Batch not found', ...NO_ROUTE_EXAMPLE };
const batchIdParameter = idParameter('The batch\'s id (`batch_id`). One of another user or business is the same 404 as a missing one.', '0d9c8a4e-5a3b-4f7e-9d51-2b7c2f0e6a11');

const batchExample = {
  _id: '0d9c8a4e-5a3b-4f7e-9d51-2b7c2f0e6a11',
  send_at: '2026-11-24T09:00:00.000Z',
  send_window: null,
  workflow_id: 'message-batch/acme/0d9c8a4e-5a3b-4f7e-9d51-2b7c2f0e6a11',
  total: 1000,
  accepted: 998,
  counts: { scheduled: 0, sending: 0, sent: 990, delivered: 0, read: 0, undelivered: 0, failed: 1, canceled: 5, suppressed: 2 },
  created_at: '2026-11-24T08:00:00.000Z',
  finished_at: '2026-11-24T09:00:02.310Z',
};

export const messageBatchesApi: ApiPart = {
  tags: [
    {
      name: 'Campaigns',
      description:
        'One message to many clients at once (up to 1,000 recipients a request), by SMS, MMS or WhatsApp. Each accepted recipient is an ordinary message (its own `_id`, ' +
        'status, events and cancel); the batch is sent by one workflow, a chunk at a time, paced to `MESSAGE_SEND_RATE_PER_SECOND` per sender when set.',
    },
  ],
  contracts: MESSAGE_BATCH_SCHEMAS,
  paths: {
    [`${PREFIX}/messages/batch`]: inBusiness({
      post: operation('sendMessageBatch', 'Campaigns', 'Send one text to up to 1,000 recipients', {
        description:
          'Checks the token, `Idempotency-Key`, `message_type`, `recipients` and unknown fields (a 400 for the whole request), then each recipient as `POST /messages` does. ' +
          'A phone is texted once per batch: a recipient whose phone (E.164, given as `client_phone` or through `client`) an earlier recipient that passed its checks ' +
          'already has is rejected with `Duplicate recipient: same phone as recipient {index}`, naming that one. ' +
          'Each accepted recipient then meets the channel\'s rules as a single message does (its opt-out of the channel, its sender carrying the channel, on WhatsApp ' +
          'the template\'s consent and approval or the 24-hour window): a refusal there rejects that recipient with the 409 `POST /messages` would answer. ' +
          'Refused recipients do not refuse the others: 202 when at least one was accepted, 400 (nothing stored) when none was. The body may be up to 5 MB (decompressed) and 100,000 values.',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'As for `POST /messages`: the same key with the same request answers the first answer again and never sends twice; with another request, a 422.',
            schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~](?:[ -~]{0,253}[!-~])?$' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('schemas', 'SendMessageBatchRequest'),
              examples: {
                sms: {
                  summary: 'In an hour, by SMS, with each recipient\'s name',
                  value: { message_type: 'text', text_message: 'Hi {{client_name}}, our sale starts today.', delay: 'PT1H', recipients: [{ client: 'c1' }, { client_phone: '+14155550123', client_name: 'Grace' }] },
                },
                whatsappTemplate: {
                  summary: 'A WhatsApp template to clients who opted in',
                  value: { message_type: 'text', channel: 'whatsapp', template: { _id: 'sale_starts', variables: { 1: 'today' } }, recipients: [{ client: 'c1' }, { client: 'c2' }] },
                },
              },
            },
          },
        },
        responses: routeResponses(true, {
          202: json('Stored and scheduled: one result per recipient.', ref('schemas', 'MessageBatchAccepted'), {
            example: {
              batch_id: '0d9c8a4e-5a3b-4f7e-9d51-2b7c2f0e6a11',
              results: [
                { index: 0, _id: '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4', status: 'scheduled', send_at: '2026-11-24T09:00:00.000Z' },
                { index: 1, status: 'rejected', error: { type: '/problems/invalid-request', status: 400, detail: 'Duplicate recipient: same phone as recipient 0' } },
                { index: 2, status: 'rejected', error: { type: '/problems/conflict', status: 409, detail: 'Client c3 has not opted in to WhatsApp: record its consent first (PUT /clients/c3/consents/whatsapp)' } },
              ],
            },
            headers: {
              Location: ref('headers', 'Location'),
              'Idempotent-Replayed': { description: 'Present when this answers a repeated `Idempotency-Key`.', schema: { type: 'string', const: 'true' } },
            },
          }),
          400: {
            description: 'The request is invalid as a whole, or no recipient could be accepted (then with each recipient\'s problem).',
            content: {
              'application/problem+json': {
                schema: { oneOf: [ref('schemas', 'BadRequestProblem'), ref('schemas', 'MessageBatchRefusedProblem')] },
                examples: {
                  invalidType: { summary: 'Invalid message_type: must be "text"', value: { type: '/problems/invalid-request', title: 'Bad Request', status: 400, detail: 'Invalid message_type: must be "text"' } },
                  invalidRecipients: {
                    summary: 'Invalid recipients: must be an array of 1 to 1000 objects',
                    value: { type: '/problems/invalid-request', title: 'Bad Request', status: 400, detail: 'Invalid recipients: must be an array of 1 to 1000 objects' },
                  },
                  unknownField: {
                    summary: 'Unknown field: recipients[1].nmae',
                    value: { type: '/problems/invalid-request', title: 'Bad Request', status: 400, detail: 'Unknown field: recipients[1].nmae' },
                  },
                  tooManyValues: {
                    summary: 'Request body has more than 100,000 values',
                    value: { type: '/problems/invalid-request', title: 'Bad Request', status: 400, detail: 'Request body has more than 100,000 values' },
                  },
                  noneAccepted: {
                    summary: 'No recipient could be accepted: see results',
                    value: {
                      type: '/problems/invalid-request',
                      title: 'Bad Request',
                      status: 400,
                      detail: 'No recipient could be accepted: see results',
                      batch_id: null,
                      results: [{ index: 0, status: 'rejected', error: { type: '/problems/not-found', status: 404, detail: 'Client not found' } }],
                    },
                  },
                },
              },
            },
          },
          422: problem(422, 'This `Idempotency-Key` was used with a different request.', { keyReused: 'Idempotency-Key was already used with a different request' }),
          503: problem(
            503,
            'PostgreSQL or Temporal cannot be reached, or the batch could not be scheduled (with `Retry-After`). With an `Idempotency-Key` it is stored: repeat the request with the same key.',
            {
              unavailable: 'A backing service is unavailable; try again shortly',
              storedNotScheduled: 'The batch is stored but not scheduled yet: repeat the request with the same Idempotency-Key',
              notScheduled: 'The batch could not be scheduled and will not be sent: try again',
            },
            ['Retry-After'],
          ),
        }),
      }),
    }),
    [`${PREFIX}/messages/batches`]: inBusiness({
      get: operation('listMessageBatches', 'Campaigns', 'The caller\'s batches, newest first', {
        description: 'The caller\'s batches in this business, each with its messages counted by status, a page at a time.',
        parameters: pageParameters('Batches a page, 1-100 (50 by default).'),
        responses: routeResponses(false, {
          200: json('A page of batches.', pageSchema('batches', ref('schemas', 'MessageBatch')), { example: { batches: [batchExample], next_cursor: null } }),
          400: badParameters('`limit` or `cursor` is not valid, or the path is not validly percent-encoded.', {
            invalidLimit: 'Invalid limit: must be a whole number from 1 to 100',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
          }),
          404: problem(404, 'The business name in the path is not valid: no route.', NO_ROUTE_EXAMPLE),
        }),
      }),
    }),
    [`${PREFIX}/messages/batch/{_id}`]: inBusiness({
      get: operation('getMessageBatch', 'Campaigns', 'A batch and its messages counted by status', {
        responses: routeResponses(false, {
          200: json('The batch.', ref('schemas', 'MessageBatch'), { example: batchExample }),
          404: problem(404, 'No such batch of the caller in this business.', batchNotFound),
        }),
      }),
    }, batchIdParameter),
    [`${PREFIX}/messages/batch/{_id}/cancel`]: inBusiness({
      post: operation('cancelMessageBatch', 'Campaigns', 'Cancel what has not left', {
        description:
          'Every message of the batch still `scheduled` becomes `canceled`; those already sending or sent are left as they are. Idempotent. ' +
          'When none is left sending, the batch is finished there and then (`finished_at`); otherwise when its last chunk in flight ends.',
        responses: routeResponses(true, {
          200: json('The batch after the cancel.', ref('schemas', 'MessageBatch'), { example: { ...batchExample, counts: { ...batchExample.counts, sent: 0, failed: 0, canceled: 996 } } }),
          404: problem(404, 'No such batch of the caller in this business.', batchNotFound),
        }),
      }),
    }, batchIdParameter),
  },
};
