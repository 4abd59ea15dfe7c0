import { IDEMPOTENCY_KEY_DESCRIPTION, MESSAGE_OPERATIONS as ops, MESSAGES_TAG } from '../../../use-cases/messages/operations';
import { MESSAGE_SCHEMAS, MessageListQuery } from '../../../use-cases/messages/contract';
import type { ApiPart } from '../components';
import { idParameter, inBusiness, PREFIX } from '../components';
import { queryParameters } from '../from-zod';
import { operationOf } from '../operation';

const messageIdParameter = idParameter('The message\'s id. One of another user or business is the same 404 as a missing one.', '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4');
const clientIdParameter = idParameter('The client\'s id. One of another user or business is the same 404 as a missing one.', 'c1');
/** `Idempotency-Key` as `POST /messages` and `POST /messages/batch` read it. */
export const idempotencyKeyParameter = (description: string, example?: string) => ({
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~](?:[ -~]{0,253}[!-~])?$' },
  ...(example !== undefined && { example }),
});

export const messagesApi: ApiPart = {
  tags: [{ name: 'Messages', description: MESSAGES_TAG }],
  contracts: MESSAGE_SCHEMAS,
  paths: {
    [`${PREFIX}/messages`]: inBusiness({
      post: operationOf('sendMessage', 'Messages', ops.sendMessage, { body: true, parameters: [idempotencyKeyParameter(IDEMPOTENCY_KEY_DESCRIPTION, 'reminder-42')] }),
      get: operationOf('listMessages', 'Messages', ops.listMessages, { parameters: queryParameters(MessageListQuery) }),
    }),
    [`${PREFIX}/clients/{_id}/messages`]: inBusiness({
      get: operationOf('listClientMessages', 'Messages', ops.listClientMessages, { parameters: queryParameters(MessageListQuery.omit({ client: true })) }),
    }, clientIdParameter),
    [`${PREFIX}/messages/{_id}`]: inBusiness({ get: operationOf('getMessage', 'Messages', ops.getMessage) }, messageIdParameter),
    [`${PREFIX}/messages/{_id}/cancel`]: inBusiness({ post: operationOf('cancelMessage', 'Messages', ops.cancelMessage, { body: true }) }, messageIdParameter),
  },
};
