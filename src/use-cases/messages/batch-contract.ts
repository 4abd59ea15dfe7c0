import { z } from 'zod';
import { MAX_BATCH_RECIPIENTS } from '../../domain';
import { MESSAGE_STATUSES } from '../../domain/messages';
import { DateTime, page, uuid } from '../input/contract';
import { channelFields, delayField, MAX_NAME_LENGTH, sendAtField, sendWindow } from './contract';

/*
 * The contract of a campaign (`POST /messages/batch`) and of the batches it makes. The parser
 * (batch-request.ts) keeps the checks and texts of a single send for each recipient.
 */

const OUTBOUND_STATUSES = MESSAGE_STATUSES.filter((status) => status !== 'received');

export const BatchRecipient = z.object({
  client: z.string().nullish(),
  client_phone: z.string().nullish(),
  client_name: z.string().max(MAX_NAME_LENGTH).nullish(),
  agent: z.string().nullish().meta({ description: 'As `agent` of `POST /messages`: the caller\'s agent the message answers for.' }),
  text_message: z.string().nullish().meta({ description: 'This recipient\'s own text.' }),
});

export const SendMessageBatchRequest = z
  .object({
    message_type: z.literal('text'),
    text_message: z.string().nullish().meta({
      description: 'The text of every recipient without its own; `{{client_name}}` becomes the recipient\'s name. Optional with a `template`, as for `POST /messages`.',
      examples: ['Hi {{client_name}}, our sale starts today.'],
    }),
    delay: delayField.meta({ description: 'As for `POST /messages`; the same for every recipient.' }),
    send_at: sendAtField.meta({ format: 'date-time', description: 'As for `POST /messages` (not with `delay`); the same instant for every recipient.', examples: ['2030-01-01T09:00:00Z'] }),
    send_window: sendWindow.nullish().meta({ description: 'As for `POST /messages`; read in each client\'s time zone unless it names one.' }),
    channel: channelFields.channel.meta({ description: 'As for `POST /messages`; the same for every recipient.' }),
    media: channelFields.media.meta({ description: 'As for `POST /messages` (at most 10 files for `sms`, one for `whatsapp`); the same files to every recipient.' }),
    template: channelFields.template.meta({
      description:
        'As for `POST /messages`: a WhatsApp template with its values, the same for every recipient; each recipient must be a `client` whose WhatsApp consent is recorded (else that recipient is refused with a 409).',
    }),
    suggestions: channelFields.suggestions.meta({ description: 'As for `POST /messages`: RCS\'s suggested replies, the same for every recipient.' }),
    recipients: z.array(BatchRecipient).min(1).max(MAX_BATCH_RECIPIENTS),
  })
  .meta({
    id: 'SendMessageBatchRequest',
    description:
      'Each recipient is checked as `POST /messages` would check the body it stands for: its own fields with the batch\'s `message_type`, `delay`, `send_at`, `send_window`, ' +
      '`channel`, `media`, `template`, `suggestions` and `text_message` (unless it has its own). A field not described here, in the batch or in a recipient, refuses the whole request: 400 `Unknown field: recipients[{index}].{name}`. A batch-level field refused (an invalid `channel`, `media` or `template`) refuses every recipient with the same problem.',
  });

export type SendMessageBatchBody = z.input<typeof SendMessageBatchRequest>;

const recipientResult = z.strictObject({
  index: z.int().min(0).meta({ description: 'The recipient\'s place in `recipients`.' }),
  _id: uuid().optional().meta({ description: 'The message\'s id (accepted only): `GET /messages/{_id}`, `POST /messages/{_id}/cancel`.' }),
  status: z.enum(['scheduled', 'rejected']),
  send_at: DateTime.optional(),
  error: z
    .strictObject({
      type: z.string(),
      status: z.int(),
      detail: z.string(),
      hint: z.string().optional().meta({ description: 'What to do about it, where the detail is a fixed text (`Invalid delay`).' }),
    })
    .optional()
    .meta({
      description:
        'Refused only: the problem `POST /messages` answers for this recipient alone (its status, type and exact detail), or for a phone an earlier ' +
        'recipient already has, 400 `Duplicate recipient: same phone as recipient {index}`.',
    }),
});

export const MessageBatchAccepted = z
  .strictObject({ batch_id: uuid(), results: z.array(recipientResult).meta({ description: 'One per recipient, in request order.' }) })
  .meta({ id: 'MessageBatchAccepted' });

export const MessageBatchRefusedProblem = z
  .strictObject({
    type: z.literal('/problems/invalid-request'),
    title: z.literal('Bad Request'),
    status: z.literal(400),
    detail: z.literal('No recipient could be accepted: see results'),
    instance: z.string().optional(),
    batch_id: z.null(),
    results: z.array(recipientResult),
  })
  .meta({ id: 'MessageBatchRefusedProblem', description: 'No recipient could be accepted: nothing was stored; `results` says why for each.' });

export const MessageBatch = z
  .strictObject({
    _id: uuid(),
    send_at: DateTime,
    send_window: z.object({}).loose().nullable(),
    workflow_id: z.string().regex(/^message-batch\//),
    total: z.int().meta({ description: 'Recipients in the request.' }),
    accepted: z.int().meta({ description: 'Recipients stored as messages.' }),
    counts: z
      .strictObject(Object.fromEntries(OUTBOUND_STATUSES.map((status) => [status, z.int().min(0)])))
      .meta({ description: 'The batch\'s messages by status.' }),
    created_at: DateTime,
    finished_at: z.string().nullable().meta({ format: 'date-time', description: 'When nothing was left to send: its workflow found none, or a cancel left none scheduled or sending.' }),
  })
  .meta({ id: 'MessageBatch' });

export const MessageBatchPage = page('batches', MessageBatch).strict();

export const MESSAGE_BATCH_SCHEMAS = { requests: [SendMessageBatchRequest], responses: [MessageBatchAccepted, MessageBatchRefusedProblem, MessageBatch] };
