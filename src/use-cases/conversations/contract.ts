import { z } from 'zod';
import { Message } from '../messages/contract';
import { DateTime, dateOrNull, ResourceId, uuid } from '../input/contract';
import { UUID } from '../input/page';
import { isBlank, resourceId } from '../input/validation';

/*
 * The contract of conversations: the bodies of snooze, read and notes, which parseBody reads with these
 * very schemas (their texts are the 400s), and the views. The OpenAPI document is generated from them.
 */

export const MAX_NOTE_LENGTH = 5000;
const YEAR_MS = 366 * 24 * 60 * 60 * 1000;

export const SnoozeRequest = z.object({
  until: z
    .string({ error: 'is required: the date-time the conversation opens again' })
    .refine((raw) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(raw) && !Number.isNaN(Date.parse(raw)), 'must be an ISO 8601 date-time with a zone, such as 2030-01-01T09:00:00Z')
    .meta({ format: 'date-time' })
    .transform((raw) => new Date(raw))
    .refine((until) => until.getTime() > Date.now(), 'must be in the future')
    .refine((until) => until.getTime() <= Date.now() + YEAR_MS, 'must be within a year'),
});

export const ReadRequest = z.object({
  agent: resourceId,
  message: z.string({ error: 'is required: the _id of the last message read' }).regex(UUID, 'must be the _id of a message of this conversation').meta({ format: 'uuid' }),
});

export const NoteRequest = z.object({
  agent: resourceId,
  text: z
    .string({ error: 'is required' })
    .meta({ minLength: 1, maxLength: MAX_NOTE_LENGTH })
    .refine((text) => !isBlank(text), 'must not be empty')
    .refine((text) => [...text].length <= MAX_NOTE_LENGTH, `must be at most ${MAX_NOTE_LENGTH} characters`),
});

export const CONVERSATION_EXAMPLE = {
  _id: '9b1f6d2a-8c4e-5f3a-9d7b-2e6c4a1f8b30',
  client: 'c1',
  sender: '+16285550001',
  status: 'open',
  assignees: ['a1'],
  waiting_since: '2026-11-28T09:14:02.120Z',
  last_inbound_at: '2026-11-28T09:14:02.120Z',
  last_outbound_at: '2026-11-27T16:40:00.031Z',
  first_response_at: '2026-11-27T16:40:00.031Z',
  snoozed_until: null,
  unread: 1,
  created_at: '2026-11-27T16:32:10.500Z',
  updated_at: '2026-11-28T09:14:02.120Z',
};

export const NOTE_EXAMPLE = {
  _id: '3f0a9c1e-6b2d-4e8f-a1c7-5d9e0b2f4a68',
  conversation: CONVERSATION_EXAMPLE._id,
  internal: true,
  agent: 'a1',
  text: 'Asked about the premium plan; call back Monday',
  created_at: '2026-11-28T09:20:00.000Z',
};

const conversationFields = {
  _id: uuid(),
  client: ResourceId,
  sender: z.string().nullable().meta({ description: 'Our side of the thread: the number or messaging service; null when the deployment has no carrier.' }),
  status: z.enum(['open', 'snoozed', 'closed']),
  assignees: z.array(ResourceId).meta({ description: 'The agents that hold the client now (active assignments whose `dt_until` is ahead), oldest first.' }),
  waiting_since: dateOrNull('When the oldest text of the client not answered yet came in; null when nothing waits.'),
  last_inbound_at: dateOrNull('The client\'s latest text.'),
  last_outbound_at: dateOrNull('Our latest message to the client (when it was accepted).'),
  first_response_at: dateOrNull('When the first text of the client was first answered: when our first message accepted after it was handed to a carrier (a message suppressed, refused or canceled answers nothing).'),
  snoozed_until: dateOrNull('While snoozed: when it opens again by itself.'),
  unread: z.int().min(0).nullable().meta({ description: 'With `?agent=`: the client\'s texts after that agent\'s read horizon (all of them before it read any); null without an agent.' }),
  created_at: DateTime,
  updated_at: DateTime,
};

export const Conversation = z.strictObject(conversationFields).meta({ id: 'Conversation', examples: [CONVERSATION_EXAMPLE] });

export const ConversationNote = z
  .strictObject({ _id: uuid(), conversation: uuid(), internal: z.literal(true), agent: ResourceId, text: z.string(), created_at: DateTime })
  .meta({ id: 'ConversationNote', description: 'An internal note in a conversation: never sent to the client nor to a carrier; erased with the client.', examples: [NOTE_EXAMPLE] });

export const ThreadItem = z.union([Message, ConversationNote]).meta({ id: 'ThreadItem' });

export const ConversationDetails = z
  .strictObject({ ...conversationFields, latest: z.array(ThreadItem).max(20).meta({ description: 'The latest 20 messages and notes, newest first.' }) })
  .meta({ id: 'ConversationDetails' });

export const CONVERSATION_SCHEMAS = { requests: [], responses: [Conversation, ConversationNote, ThreadItem, ConversationDetails] };
