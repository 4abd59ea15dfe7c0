import { z } from 'zod';
import { MESSAGE_STATUSES } from '../../domain/messages';
import { DateTime, page, uuid } from '../input/contract';

/*
 * The contract of the operator's reads of messages: `GET /admin/messages/{id}` and
 * `GET /admin/unmatched-inbound`. The OpenAPI document is generated from these.
 */

export const OPERATOR_MESSAGE_EXAMPLE = {
  _id: '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4',
  business: 'acme',
  user: 'user-1',
  client: 'c1',
  direction: 'outbound',
  status: 'undelivered',
  reason: 'The carrier reported the message undelivered: The recipient\'s handset is unreachable (error 30003)',
  error_code: '30003',
  provider: 'simulator',
  workflow_id: 'message/acme/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4',
  batch_id: null,
  send_at: '2026-11-25T17:00:00.000Z',
  deferred_until: null,
  created_at: '2026-11-25T17:00:00.000Z',
  updated_at: '2026-11-25T17:00:01.200Z',
  dispatched_at: '2026-11-25T17:00:00.050Z',
  sent_at: '2026-11-25T17:00:00.400Z',
  delivered_at: null,
  canceled_at: null,
  suppressed_at: null,
  received_at: null,
};

export const UNMATCHED_TEXT_EXAMPLE = {
  _id: '2f0c1d9e-9b7a-4c55-8f0e-6a1b2c3d4e5f',
  provider: 'simulator',
  from: '+14155550199',
  to: '+15005550006',
  text: 'Who is this?',
  ambiguous: false,
  received_at: '2026-11-25T17:05:00.000Z',
  created_at: '2026-11-25T17:05:00.120Z',
  business: null,
};

const date = (description?: string) => z.string().nullable().meta({ format: 'date-time', ...(description && { description }) });

export const OperatorMessage = z
  .strictObject({
    _id: uuid(),
    business: z.string(),
    user: z.string().meta({ description: 'The user (token subject) whose message it is.' }),
    client: z.string().nullable(),
    direction: z.enum(['outbound', 'inbound']),
    status: z.enum(MESSAGE_STATUSES),
    reason: z.string().nullable().meta({
      description: 'Why it failed, was undelivered, suppressed or canceled, in words (the carrier\'s code in parentheses); null otherwise. The same words as the run\'s details in Temporal.',
    }),
    error_code: z.string().nullable().meta({ description: 'The carrier\'s error code.' }),
    provider: z.string().nullable(),
    workflow_id: z.string().nullable(),
    batch_id: z.string().nullable().meta({ format: 'uuid' }),
    send_at: DateTime,
    deferred_until: date(),
    created_at: DateTime,
    updated_at: DateTime,
    dispatched_at: date(),
    sent_at: date(),
    delivered_at: date(),
    canceled_at: date(),
    suppressed_at: date(),
    received_at: date(),
  })
  .meta({
    id: 'OperatorMessage',
    description: 'A message as the operator sees it: whose it is, where it is and why it ended so. Never its phone, name or text.',
    examples: [OPERATOR_MESSAGE_EXAMPLE],
  });

export const UnmatchedInboundText = z
  .strictObject({
    _id: uuid(),
    provider: z.string(),
    from: z.string().meta({ description: 'The number that texted.' }),
    to: z.string().meta({ description: 'Our number it was sent to.' }),
    text: z.string(),
    ambiguous: z.boolean().meta({ description: 'More than one user (on the shared sender: business or user) texted the phone from that number lately.' }),
    received_at: DateTime,
    created_at: DateTime,
    business: z.string().nullable().meta({ description: 'The business whose number it went to (it lists the text at `GET /ext/v2/{businessname}/unmatched-inbound`); null: the shared sender.' }),
  })
  .meta({
    id: 'UnmatchedInboundText',
    description: 'A text no message explains: none went to the phone from that number lately, or several users\' did (`ambiguous`). Kept; a business lists those to its numbers.',
    examples: [UNMATCHED_TEXT_EXAMPLE],
  });

export const UnmatchedInboundTextPage = page('texts', UnmatchedInboundText).strict();

export const OPERATOR_SCHEMAS = { responses: [OperatorMessage, UnmatchedInboundText] };
