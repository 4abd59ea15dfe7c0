import { badBody, badParameters, operations } from '../input/operation-docs';
import { CONVERSATION_EXAMPLE as conversation, Conversation, ConversationDetails, ConversationNote, NOTE_EXAMPLE as note, NoteRequest, ReadRequest, SnoozeRequest } from './contract';

/* What the document says of the conversations' routes (src/use-cases/input/operation-docs.ts). */

export const CONVERSATIONS_TAG =
  'The thread a user and one of its clients share on one sender (the business\'s number, or the shared sender), created by its first message either way: ' +
  '`open`, `snoozed` (until a date, when it opens by itself, or at once when the client texts) or `closed`. A text from the client opens it and starts its waiting clock ' +
  '(`waiting_since`); a message of ours to the client answers it. A client routed by a policy with `next_response_within` whose conversation waits longer than that is reported ' +
  '`conversation.overdue` once per waiting period. Each agent has a read horizon in it, and notes (`internal: true`) are never sent. ' +
  'Events: `conversation.opened`, `conversation.snoozed`, `conversation.reopened`, `conversation.closed`, `conversation.overdue`, `conversation.note_added`.';

const NOT_FOUND = { description: 'No conversation of the caller has this `_id` (another user\'s is answered alike), or the business is unknown.', examples: { conversationNotFound: 'Conversation not found' } };
const CHANGED = { description: 'The conversation after the change.', schema: Conversation };

export const CONVERSATION_OPERATIONS = operations({
  listConversations: {
    summary: 'The caller\'s conversations',
    description:
      'Newest activity first; with `waiting=true`, only those waiting for an answer, the longest waiting first (an inbox\'s queue). ' +
      '`agent` and `client` name the caller\'s own: another\'s, or one that does not exist, is a 404.',
    responses: {
      200: { description: 'One page.', example: { conversations: [conversation], next_cursor: null } },
      400: badParameters('A query parameter is invalid; the detail names it.', {
        invalidStatus: 'Invalid status: Invalid option: expected one of "open"|"snoozed"|"closed"',
        invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
      }),
      404: { description: 'The `agent` or `client` is not the caller\'s, or the business is unknown.', examples: { agentNotFound: 'Agent not found', clientNotFound: 'Client not found' } },
    },
  },
  getConversation: {
    summary: 'One conversation and its latest messages',
    responses: {
      200: { description: 'The conversation.', schema: ConversationDetails, example: { ...conversation, latest: [note] } },
      404: { description: 'Not the caller\'s conversation, or the `agent` is not the caller\'s.', examples: { conversationNotFound: 'Conversation not found', agentNotFound: 'Agent not found' } },
    },
  },
  listConversationMessages: {
    summary: 'The thread: messages and notes',
    description: 'Messages both ways (as `GET /messages/{_id}` shows them) and notes (`internal: true`), newest first.',
    responses: {
      200: { description: 'One page, newest first.', example: { messages: [note], next_cursor: null } },
      400: badParameters('`limit` or `cursor` is not valid.', { invalidCursor: 'Invalid cursor: pass next_cursor from the previous page' }),
      404: NOT_FOUND,
    },
  },
  snoozeConversation: {
    summary: 'Snooze until a date',
    description:
      'Snoozed until `until` (within a year): then it opens by itself (`conversation.reopened`, reason `snooze`), through a durable timer of the client\'s run; a text of the client ' +
      'opens it at once. Snoozing again moves the date. A closed conversation is not snoozed (409): reopen it first.',
    body: { schema: SnoozeRequest, example: { until: '2026-11-30T09:00:00Z' } },
    responses: {
      200: { ...CHANGED, example: { ...conversation, status: 'snoozed', snoozed_until: '2026-11-30T09:00:00.000Z', unread: null } },
      400: badBody('`until` is missing or not a date-time within the next year.', {
        missingUntil: 'Invalid until: is required: the date-time the conversation opens again',
        pastUntil: 'Invalid until: must be in the future',
      }),
      404: NOT_FOUND,
      409: { description: 'The conversation is closed.', examples: { closed: 'A closed conversation cannot be snoozed: reopen it first' } },
    },
  },
  closeConversation: {
    summary: 'Close',
    description: 'Closed: nothing waits on it any more (`waiting_since` null) until the client texts again. Closing a closed one changes nothing.',
    responses: { 200: CHANGED, 404: NOT_FOUND },
  },
  reopenConversation: {
    summary: 'Reopen',
    description: 'Open again from a snooze or closed (`conversation.reopened`, reason `api`). Reopening an open one changes nothing.',
    responses: { 200: CHANGED, 404: NOT_FOUND },
  },
  readConversation: {
    summary: 'Move an agent\'s read horizon',
    description: 'The agent has read the thread up to `message` (one of this conversation\'s); a horizon already later stays where it is. Answers the conversation with that agent\'s `unread`.',
    body: { schema: ReadRequest, example: { agent: 'a1', message: '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4' } },
    responses: {
      200: { description: 'The conversation, with the agent\'s `unread`.', schema: Conversation, example: { ...conversation, unread: 0 } },
      400: badBody('`agent` or `message` is missing or malformed.', { invalidMessage: 'Invalid message: must be the _id of a message of this conversation' }),
      404: {
        description: 'Not the caller\'s conversation or agent, or the message is not in the conversation.',
        examples: { conversationNotFound: 'Conversation not found', agentNotFound: 'Agent not found', messageNotFound: 'Message not found in this conversation' },
      },
    },
  },
  addConversationNote: {
    summary: 'Add an internal note',
    description: 'A note in the thread, by one of the caller\'s agents: never sent to the client or to a carrier (`conversation.note_added`).',
    body: { schema: NoteRequest, example: { agent: 'a1', text: note.text } },
    responses: {
      201: { description: 'The note.', schema: ConversationNote, example: note },
      400: badBody('`agent` or `text` is missing or malformed.', { emptyText: 'Invalid text: must not be empty' }),
      404: { description: 'Not the caller\'s conversation or agent.', examples: { conversationNotFound: 'Conversation not found', agentNotFound: 'Agent not found' } },
    },
  },
});
