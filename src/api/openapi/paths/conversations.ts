import { CONVERSATION_EXAMPLE as conversation, CONVERSATION_SCHEMAS } from '../../../use-cases/conversations/contract';
import { CONVERSATION_OPERATIONS as ops, CONVERSATIONS_TAG } from '../../../use-cases/conversations/operations';
import type { ApiPart } from '../components';
import { idParameter, inBusiness, pageSchema, PREFIX, queryParameter, ref } from '../components';
import { pageParameters } from '../from-zod';
import { operationOf, type Wiring } from '../operation';

const conversationPath = (suffix: string) => `${PREFIX}/conversations/{_id}${suffix}`;
const idParam = idParameter('The conversation\'s `_id`; another user\'s is answered as a missing one.', conversation._id);
const op = (operationId: keyof typeof ops, wiring: Wiring = {}) => operationOf(operationId, 'Conversations', ops[operationId], wiring);
const action = (operationId: keyof typeof ops) => inBusiness({ post: op(operationId, { body: true }) }, idParam);

export const conversationsApi: ApiPart = {
  tags: [{ name: 'Conversations', description: CONVERSATIONS_TAG }],
  contracts: CONVERSATION_SCHEMAS,
  paths: {
    [`${PREFIX}/conversations`]: inBusiness({
      get: op('listConversations', {
        parameters: [
          queryParameter('status', 'Only conversations in this status.', { enum: ['open', 'snoozed', 'closed'] }),
          queryParameter('agent', 'Only the clients this agent holds now; each conversation\'s `unread` is then that agent\'s.', ref('schemas', 'ResourceId'), 'a1'),
          queryParameter('client', 'Only this client\'s.', ref('schemas', 'ResourceId'), 'c1'),
          queryParameter('waiting', '`true`: only those with a text not answered yet, oldest `waiting_since` first.', { enum: ['true', 'false'] }),
          ...pageParameters(),
        ],
        schemas: { 200: pageSchema('conversations', ref('schemas', 'Conversation')) },
      }),
    }),
    [conversationPath('')]: inBusiness({ get: op('getConversation', { parameters: [queryParameter('agent', 'Whose `unread` to count.', ref('schemas', 'ResourceId'), 'a1')] }) }, idParam),
    [conversationPath('/messages')]: inBusiness(
      { get: op('listConversationMessages', { parameters: pageParameters(), schemas: { 200: pageSchema('messages', ref('schemas', 'ThreadItem')) } }) },
      idParam,
    ),
    [conversationPath('/snooze')]: action('snoozeConversation'),
    [conversationPath('/close')]: action('closeConversation'),
    [conversationPath('/reopen')]: action('reopenConversation'),
    [conversationPath('/read')]: action('readConversation'),
    [conversationPath('/notes')]: action('addConversationNote'),
  },
};
