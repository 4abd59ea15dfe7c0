import type { ApiPart } from '../components';
import { BAD_PATH_EXAMPLE, badBody, badParameters, BUSINESS_NAME_SCHEMA, common, json, pageParameters, pathParameter, problem, ref } from '../components';
import { inlineSchema } from '../from-zod';
import { INVALID_BUSINESS } from '../../../use-cases/input/validation';
import { BUSINESS_NUMBER_EXAMPLE as registered, BusinessNumberList, NUMBER_SCHEMAS } from '../../../use-cases/numbers/contract';
import { OPERATOR_MESSAGE_EXAMPLE as operatorMessage, OPERATOR_SCHEMAS, UNMATCHED_TEXT_EXAMPLE as unmatchedText, UnmatchedInboundTextPage } from '../../../use-cases/operator/contract';

const adminSecurity = [{ adminAuth: [] }];
const pathParameters = [
  pathParameter('business', 'The business (`{businessname}` of the API\'s paths).', BUSINESS_NAME_SCHEMA, 'acme'),
  pathParameter('e164', 'The number, E.164 (encode `+` as `%2B`).', { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$' }, '+15005550006'),
];
const responses = { 401: common[401], 500: common[500], 503: common[503] };
export const adminApi: ApiPart = {
  tags: [
    {
      name: 'Operator',
      description:
        'The operator API, outside the business routes: the bearer secret `ADMIN_TOKEN`, or a JWT checked like the API\'s whose `aud` is `ADMIN_JWT_AUDIENCE` ' +
        '(a business token is refused). With neither configured these routes are not served (404). Each access is logged with who asked.',
    },
  ],
  contracts: { requests: NUMBER_SCHEMAS.requests, responses: [...OPERATOR_SCHEMAS.responses, ...NUMBER_SCHEMAS.responses] },
  paths: {
    '/admin/messages/{id}': {
      parameters: [pathParameter('id', 'The message\'s id, as in its workflow id `message/{business}/{id}`.', { type: 'string' }, operatorMessage._id)],
      get: {
        operationId: 'getMessageForOperator',
        tags: ['Operator'],
        security: adminSecurity,
        summary: 'Any business\'s message, by id',
        description:
          'For an operator holding a message id from the Temporal UI: its business, user and client, its status and why it ended so (`reason`), and its times. ' +
          'Its phone, name and text are not answered (its user reads them with `GET /messages/{_id}`).',
        responses: {
          200: json('The message.', ref('schemas', 'OperatorMessage'), { example: operatorMessage }),
          400: problem(400, 'The path is not validly percent-encoded.', { ...BAD_PATH_EXAMPLE }),
          404: problem(404, 'No message has this id (or it is not a message id).', { notFound: 'Message not found' }),
          ...responses,
        },
      },
    },
    '/admin/unmatched-inbound': {
      get: {
        operationId: 'listUnmatchedInbound',
        tags: ['Operator'],
        security: adminSecurity,
        summary: 'Inbound texts no message explains',
        description: 'Texts no message explains, of every business and the shared sender, newest first, a page at a time.',
        parameters: pageParameters('Texts a page, 1-100 (50 by default).'),
        responses: {
          200: json(
            'A page of texts; `next_cursor` is null on the last.',
            inlineSchema(UnmatchedInboundTextPage, 'output'),
            { example: { texts: [unmatchedText], next_cursor: null } },
          ),
          400: problem(400, '`limit` or `cursor` is not valid.', {
            invalidLimit: 'Invalid limit: must be a whole number from 1 to 100',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
          }),
          ...responses,
        },
      },
    },
    '/admin/businesses/{business}/numbers': {
      parameters: [pathParameters[0]],
      get: {
        operationId: 'listBusinessNumbers',
        tags: ['Operator'],
        security: adminSecurity,
        summary: 'The business\'s numbers',
        description: 'Its numbers now registered, by number. A retired number is not listed.',
        responses: {
          200: json('The numbers.', inlineSchema(BusinessNumberList, 'output'), { example: { numbers: [registered] } }),
          400: problem(400, 'The business name is not valid.', { badBusiness: INVALID_BUSINESS }),
          ...responses,
        },
      },
    },
    '/admin/businesses/{business}/numbers/{e164}': {
      parameters: pathParameters,
      put: {
        operationId: 'putBusinessNumber',
        tags: ['Operator'],
        security: adminSecurity,
        summary: 'Register a number for a business (or change its registration)',
        description:
          'The business sends from its numbers (the same one for the same phone), and texts to them reach it alone: replies, STOP and START, receipts. ' +
          'A number belongs to one business at a time; the deployment\'s shared sender belongs to none.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'NumberRegistration') } } },
        responses: {
          200: json('Registered.', ref('schemas', 'BusinessNumber'), { example: registered }),
          400: badBody('A field is not valid.', {
            badNumber: 'Invalid number: must be an E.164 phone number such as +14155550123',
            otherCarrier: 'Invalid carrier: this deployment sends through twilio',
            badCredentials: 'Invalid credentials.account_sid: must be AC followed by 32 hexadecimal digits',
            badChannel: 'Invalid channels.0: each must be sms, mms or whatsapp',
            noChannel: 'Invalid channels: must name at least one of sms, mms, whatsapp',
          }),
          409: problem(409, 'Another business holds the number, or it is the shared sender, or the deployment has no carrier.', {
            held: '+15005550001 belongs to another business: retire it there first',
            shared: '+15005550006 is the deployment\'s shared sender: it belongs to no business',
            noCarrier: 'This deployment sends through no carrier (MESSAGE_PROVIDER is log or webhook): it has no numbers',
          }),
          413: common[413],
          415: common[415],
          ...responses,
        },
      },
      delete: {
        operationId: 'retireBusinessNumber',
        tags: ['Operator'],
        security: adminSecurity,
        summary: 'Retire a number',
        description:
          'The business no longer sends from it and another business may register it. Messages already sent from it keep it as their sender: their receipts ' +
          'and the replies to them still reach this business (until another registers the number). A message still scheduled on it fails when due ' +
          '(`Its sending number was retired from the business`).',
        responses: {
          204: { description: 'Retired.' },
          400: badParameters('The path is not valid.', { badNumber: 'Invalid number: must be an E.164 phone number such as +14155550123' }),
          404: problem(404, 'The business holds no such number.', { notFound: 'Number not found' }),
          ...responses,
        },
      },
    },
  },
};
