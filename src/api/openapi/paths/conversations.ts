import { CONVERSATION_EXAMPLE as conversation, CONVERSATION_SCHEMAS, NOTE_EXAMPLE as note, NoteRequest, ReadRequest, SnoozeRequest } from '../../../use-cases/conversations/contract';
import type { ApiPart } from '../components';
import { inlineSchema } from '../from-zod';
import { badBody, badParameters, idParameter, inBusiness, json, operation, pageParameters, pageSchema, PREFIX, problem, queryParameter, ref, routeResponses } from '../components';

const ID = conversation._id;

const NOT_FOUND = problem(404, 'No conversation of the caller has this `_id` (another user\'s is answered alike), or the business is unknown.', {
  conversationNotFound: 'Conversation not found',
});

const conversationPath = (suffix: string) => `${PREFIX}/conversations/{_id}${suffix}`;
const idParam = idParameter('The conversation\'s `_id`; another user\'s is answered as a missing one.', ID);

export const conversationsApi: ApiPart = {
  tags: [
    {
      name: 'Conversations',
      description:
        'The thread a user and one of its clients share on one sender (the business\'s number, or the shared sender), created by its first message either way: ' +
        '`open`, `snoozed` (until a date, when it opens by itself, or at once when the client texts) or `closed`. A text from the client opens it and starts its waiting clock ' +
        '(`waiting_since`); a message of ours to the client answers it. A client routed by a policy with `next_response_within` whose conversation waits longer than that is reported ' +
        '`conversation.overdue` once per waiting period. Each agent has a read horizon in it, and notes (`internal: true`) are never sent. ' +
        'Events: `conversation.opened`, `conversation.snoozed`, `conversation.reopened`, `conversation.closed`, `conversation.overdue`, `conversation.note_added`.',
    },
  ],
  contracts: CONVERSATION_SCHEMAS,
  paths: {
    [`${PREFIX}/conversations`]: inBusiness({
      get: operation('listConversations', 'Conversations', 'The caller\'s conversations', {
        description:
          'Newest activity first; with `waiting=true`, only those waiting for an answer, the longest waiting first (an inbox\'s queue). ' +
          '`agent` and `client` name the caller\'s own: another\'s, or one that does not exist, is a 404.',
        parameters: [
          queryParameter('status', 'Only conversations in this status.', { enum: ['open', 'snoozed', 'closed'] }),
          queryParameter('agent', 'Only the clients this agent holds now; each conversation\'s `unread` is then that agent\'s.', ref('schemas', 'ResourceId'), 'a1'),
          queryParameter('client', 'Only this client\'s.', ref('schemas', 'ResourceId'), 'c1'),
          queryParameter('waiting', '`true`: only those with a text not answered yet, oldest `waiting_since` first.', { enum: ['true', 'false'] }),
          ...pageParameters(),
        ],
        responses: routeResponses(false, {
          200: json('One page.', pageSchema('conversations', ref('schemas', 'Conversation')), { example: { conversations: [conversation], next_cursor: null } }),
          400: badParameters('A query parameter is invalid; the detail names it.', {
            invalidStatus: 'Invalid status: Invalid option: expected one of "open"|"snoozed"|"closed"',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
          }),
          404: problem(404, 'The `agent` or `client` is not the caller\'s, or the business is unknown.', { agentNotFound: 'Agent not found', clientNotFound: 'Client not found' }),
        }),
      }),
    }),
    [conversationPath('')]: inBusiness(
      {
        get: operation('getConversation', 'Conversations', 'One conversation and its latest messages', {
          parameters: [queryParameter('agent', 'Whose `unread` to count.', ref('schemas', 'ResourceId'), 'a1')],
          responses: routeResponses(false, {
            200: json('The conversation.', ref('schemas', 'ConversationDetails'), { example: { ...conversation, latest: [note] } }),
            404: problem(404, 'Not the caller\'s conversation, or the `agent` is not the caller\'s.', { conversationNotFound: 'Conversation not found', agentNotFound: 'Agent not found' }),
          }),
        }),
      },
      idParam,
    ),
    [conversationPath('/messages')]: inBusiness(
      {
        get: operation('listConversationMessages', 'Conversations', 'The thread: messages and notes', {
          description: 'Messages both ways (as `GET /messages/{_id}` shows them) and notes (`internal: true`), newest first.',
          parameters: pageParameters(),
          responses: routeResponses(false, {
            200: json('One page, newest first.', pageSchema('messages', ref('schemas', 'ThreadItem')), { example: { messages: [note], next_cursor: null } }),
            400: badParameters('`limit` or `cursor` is not valid.', { invalidCursor: 'Invalid cursor: pass next_cursor from the previous page' }),
            404: NOT_FOUND,
          }),
        }),
      },
      idParam,
    ),
    [conversationPath('/snooze')]: inBusiness(
      {
        post: operation('snoozeConversation', 'Conversations', 'Snooze until a date', {
          description:
            'Snoozed until `until` (within a year): then it opens by itself (`conversation.reopened`, reason `snooze`), through a durable timer of the client\'s run; a text of the client ' +
            'opens it at once. Snoozing again moves the date. A closed conversation is not snoozed (409): reopen it first.',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: inlineSchema(SnoozeRequest), example: { until: '2026-11-30T09:00:00Z' } } },
          },
          responses: routeResponses(true, {
            200: json('The conversation after the change.', ref('schemas', 'Conversation'), { example: { ...conversation, status: 'snoozed', snoozed_until: '2026-11-30T09:00:00.000Z', unread: null } }),
            400: badBody('`until` is missing or not a date-time within the next year.', {
              missingUntil: 'Invalid until: is required: the date-time the conversation opens again',
              pastUntil: 'Invalid until: must be in the future',
            }),
            404: NOT_FOUND,
            409: problem(409, 'The conversation is closed.', { closed: 'A closed conversation cannot be snoozed: reopen it first' }),
          }),
        }),
      },
      idParam,
    ),
    ...Object.fromEntries(
      (
        [
          ['close', 'closeConversation', 'Close', 'Closed: nothing waits on it any more (`waiting_since` null) until the client texts again. Closing a closed one changes nothing.'],
          ['reopen', 'reopenConversation', 'Reopen', 'Open again from a snooze or closed (`conversation.reopened`, reason `api`). Reopening an open one changes nothing.'],
        ] as const
      ).map(([action, operationId, summary, description]) => [
        conversationPath(`/${action}`),
        inBusiness(
          {
            post: operation(operationId, 'Conversations', summary, {
              description,
              responses: routeResponses(true, { 200: json('The conversation after the change.', ref('schemas', 'Conversation')), 404: NOT_FOUND }),
            }),
          },
          idParam,
        ),
      ]),
    ),
    [conversationPath('/read')]: inBusiness(
      {
        post: operation('readConversation', 'Conversations', 'Move an agent\'s read horizon', {
          description: 'The agent has read the thread up to `message` (one of this conversation\'s); a horizon already later stays where it is. Answers the conversation with that agent\'s `unread`.',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: inlineSchema(ReadRequest),
                example: { agent: 'a1', message: '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4' },
              },
            },
          },
          responses: routeResponses(true, {
            200: json('The conversation, with the agent\'s `unread`.', ref('schemas', 'Conversation'), { example: { ...conversation, unread: 0 } }),
            400: badBody('`agent` or `message` is missing or malformed.', { invalidMessage: 'Invalid message: must be the _id of a message of this conversation' }),
            404: problem(404, 'Not the caller\'s conversation or agent, or the message is not in the conversation.', {
              conversationNotFound: 'Conversation not found',
              agentNotFound: 'Agent not found',
              messageNotFound: 'Message not found in this conversation',
            }),
          }),
        }),
      },
      idParam,
    ),
    [conversationPath('/notes')]: inBusiness(
      {
        post: operation('addConversationNote', 'Conversations', 'Add an internal note', {
          description: 'A note in the thread, by one of the caller\'s agents: never sent to the client or to a carrier (`conversation.note_added`).',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: inlineSchema(NoteRequest),
                example: { agent: 'a1', text: note.text },
              },
            },
          },
          responses: routeResponses(true, {
            201: json('The note.', ref('schemas', 'ConversationNote'), { example: note }),
            400: badBody('`agent` or `text` is missing or malformed.', { emptyText: 'Invalid text: must not be empty' }),
            404: problem(404, 'Not the caller\'s conversation or agent.', { conversationNotFound: 'Conversation not found', agentNotFound: 'Agent not found' }),
          }),
        }),
      },
      idParam,
    ),
  },
};
