import type { ApiPart } from '../components';
import { badBody, badParameters, closedObject, idParameter, inBusiness, json, operation, pageParameters, pageSchema, PREFIX, problem, queryParameter, ref, routeResponses } from '../components';

const ID = '9b1f6d2a-8c4e-5f3a-9d7b-2e6c4a1f8b30';

const conversation = {
  _id: ID,
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

const note = {
  _id: '3f0a9c1e-6b2d-4e8f-a1c7-5d9e0b2f4a68',
  conversation: ID,
  internal: true,
  agent: 'a1',
  text: 'Asked about the premium plan; call back Monday',
  created_at: '2026-11-28T09:20:00.000Z',
};

const date = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });

export const CONVERSATION_PROPERTIES = {
        _id: { type: 'string', format: 'uuid' },
        client: ref('schemas', 'ResourceId'),
        sender: { type: ['string', 'null'], description: 'Our side of the thread: the number or messaging service; null when the deployment has no carrier.' },
        status: { enum: ['open', 'snoozed', 'closed'] },
        assignees: { type: 'array', items: ref('schemas', 'ResourceId'), description: 'The agents that hold the client now (active assignments whose `dt_until` is ahead), oldest first.' },
        waiting_since: date('When the oldest text of the client not answered yet came in; null when nothing waits.'),
        last_inbound_at: date('The client\'s latest text.'),
        last_outbound_at: date('Our latest message to the client (when it was accepted).'),
        first_response_at: date('When the first text of the client was first answered: when our first message accepted after it was handed to a carrier (a message suppressed, refused or canceled answers nothing).'),
        snoozed_until: date('While snoozed: when it opens again by itself.'),
        unread: {
          type: ['integer', 'null'],
          minimum: 0,
          description: 'With `?agent=`: the client\'s texts after that agent\'s read horizon (all of them before it read any); null without an agent.',
        },
        created_at: ref('schemas', 'DateTime'),
        updated_at: ref('schemas', 'DateTime'),
};

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
  schemas: {
    Conversation: {
      type: 'object',
      required: Object.keys(conversation),
      additionalProperties: false,
      properties: CONVERSATION_PROPERTIES,
      examples: [conversation],
    },
    ConversationNote: {
      type: 'object',
      required: Object.keys(note),
      additionalProperties: false,
      description: 'An internal note in a conversation: never sent to the client nor to a carrier; erased with the client.',
      properties: {
        _id: { type: 'string', format: 'uuid' },
        conversation: { type: 'string', format: 'uuid' },
        internal: { const: true },
        agent: ref('schemas', 'ResourceId'),
        text: { type: 'string' },
        created_at: ref('schemas', 'DateTime'),
      },
      examples: [note],
    },
    ThreadItem: { oneOf: [ref('schemas', 'Message'), ref('schemas', 'ConversationNote')] },
    ConversationDetails: closedObject([...Object.keys(conversation), 'latest'], {
      ...CONVERSATION_PROPERTIES,
      latest: { type: 'array', items: ref('schemas', 'ThreadItem'), maxItems: 20, description: 'The latest 20 messages and notes, newest first.' },
    }),
  },
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
            content: { 'application/json': { schema: closedObject(['until'], { until: { type: 'string', format: 'date-time' } }), example: { until: '2026-11-30T09:00:00Z' } } },
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
                schema: closedObject(['agent', 'message'], { agent: ref('schemas', 'ResourceId'), message: { type: 'string', format: 'uuid' } }),
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
                schema: closedObject(['agent', 'text'], { agent: ref('schemas', 'ResourceId'), text: { type: 'string', minLength: 1, maxLength: 5000 } }),
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
