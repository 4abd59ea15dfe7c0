import { badParameters, notFound, NO_ROUTE_EXAMPLE, operations, PAGE_ONLY_REFUSALS } from '../input/operation-docs';
import { MessageBatch, MessageBatchAccepted, SendMessageBatchRequest } from './batch-contract';

/* What the document says of the campaigns' routes (src/use-cases/input/operation-docs.ts). */

export const CAMPAIGNS_TAG =
  'One message to many clients at once (up to 1,000 recipients a request), by SMS, MMS or WhatsApp. Each accepted recipient is an ordinary message (its own `_id`, ' +
  'status, events and cancel); the batch is sent by one workflow, a chunk at a time, paced to `MESSAGE_SEND_RATE_PER_SECOND` per sender when set.';

/** The problems a campaign as a whole is refused with (the answer's 400 may also carry each recipient's, `MessageBatchRefusedProblem`). */
export const BATCH_REFUSALS = {
  invalidType: 'Invalid message_type: must be "text"',
  invalidRecipients: 'Invalid recipients: must be an array of 1 to 1000 objects',
  unknownField: 'Unknown field: recipients[1].nmae',
  tooManyValues: 'Request body has more than 100,000 values',
};
export const NONE_ACCEPTED = {
  detail: 'No recipient could be accepted: see results',
  batch_id: null,
  results: [{ index: 0, status: 'rejected', error: { type: '/problems/not-found', status: 404, detail: 'Client not found' } }],
};
const BATCH_NOT_FOUND = notFound('No such batch of the caller in this business.', { batchNotFound: 'Batch not found' });
export const BATCH_EXAMPLE = {
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

export const MESSAGE_BATCH_OPERATIONS = operations({
  sendMessageBatch: {
    summary: 'Send one text to up to 1,000 recipients',
    description:
      'Checks the token, `Idempotency-Key`, `message_type`, `recipients` and unknown fields (a 400 for the whole request), then each recipient as `POST /messages` does. ' +
      'A phone is texted once per batch: a recipient whose phone (E.164, given as `client_phone` or through `client`) an earlier recipient that passed its checks ' +
      'already has is rejected with `Duplicate recipient: same phone as recipient {index}`, naming that one. ' +
      'Each accepted recipient then meets the channel\'s rules as a single message does (its opt-out of the channel, its sender carrying the channel, on WhatsApp ' +
      'the template\'s consent and approval or the 24-hour window): a refusal there rejects that recipient with the 409 `POST /messages` would answer. ' +
      'Refused recipients do not refuse the others: 202 when at least one was accepted, 400 (nothing stored) when none was. The body may be up to 5 MB (decompressed) and 100,000 values.',
    body: {
      schema: SendMessageBatchRequest,
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
    responses: {
      202: {
        description: 'Stored and scheduled: one result per recipient.',
        schema: MessageBatchAccepted,
        headers: ['Location', 'Idempotent-Replayed'],
        example: {
          batch_id: '0d9c8a4e-5a3b-4f7e-9d51-2b7c2f0e6a11',
          results: [
            { index: 0, _id: '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4', status: 'scheduled', send_at: '2026-11-24T09:00:00.000Z' },
            { index: 1, status: 'rejected', error: { type: '/problems/invalid-request', status: 400, detail: 'Duplicate recipient: same phone as recipient 0' } },
            { index: 2, status: 'rejected', error: { type: '/problems/conflict', status: 409, detail: 'Client c3 has not opted in to WhatsApp: record its consent first (PUT /clients/c3/consents/whatsapp)' } },
          ],
        },
      },
      422: { description: 'This `Idempotency-Key` was used with a different request.', examples: { keyReused: 'Idempotency-Key was already used with a different request' } },
      503: {
        description: 'PostgreSQL or Temporal cannot be reached, or the batch could not be scheduled (with `Retry-After`). With an `Idempotency-Key` it is stored: repeat the request with the same key.',
        examples: {
          unavailable: 'A backing service is unavailable; try again shortly',
          storedNotScheduled: 'The batch is stored but not scheduled yet: repeat the request with the same Idempotency-Key',
          notScheduled: 'The batch could not be scheduled and will not be sent: try again',
        },
        headers: ['Retry-After'],
      },
    },
  },
  listMessageBatches: {
    summary: 'The caller\'s batches, newest first',
    description: 'The caller\'s batches in this business, each with its messages counted by status, a page at a time.',
    responses: {
      200: { description: 'A page of batches.', example: { batches: [BATCH_EXAMPLE], next_cursor: null } },
      400: badParameters('`limit` or `cursor` is not valid, or the path is not validly percent-encoded.', PAGE_ONLY_REFUSALS),
      404: { description: 'The business name in the path is not valid: no route.', examples: NO_ROUTE_EXAMPLE },
    },
  },
  getMessageBatch: {
    summary: 'A batch and its messages counted by status',
    responses: { 200: { description: 'The batch.', schema: MessageBatch, example: BATCH_EXAMPLE }, 404: BATCH_NOT_FOUND },
  },
  cancelMessageBatch: {
    summary: 'Cancel what has not left',
    description:
      'Every message of the batch still `scheduled` becomes `canceled`; those already sending or sent are left as they are. Idempotent. ' +
      'When none is left sending, the batch is finished there and then (`finished_at`); otherwise when its last chunk in flight ends.',
    responses: {
      200: { description: 'The batch after the cancel.', schema: MessageBatch, example: { ...BATCH_EXAMPLE, counts: { ...BATCH_EXAMPLE.counts, sent: 0, failed: 0, canceled: 996 } } },
      404: BATCH_NOT_FOUND,
    },
  },
});
