import type { ApiPart, OpenApiObject } from '../components';
import { BAD_PATH_EXAMPLE, badBody, badParameters, BUSINESS_NAME_SCHEMA, common, json, pageParameters, pathParameter, problem, ref } from '../components';
import { INVALID_BUSINESS } from '../../../use-cases/input/validation';

const adminSecurity = [{ adminAuth: [] }];
const pathParameters = [
  pathParameter('business', 'The business (`{businessname}` of the API\'s paths).', BUSINESS_NAME_SCHEMA, 'acme'),
  pathParameter('e164', 'The number, E.164 (encode `+` as `%2B`).', { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$' }, '+15005550006'),
];
const registered = {
  business: 'acme',
  number: '+15005550001',
  carrier: 'twilio',
  messaging_service_sid: null,
  own_account: true,
  channels: ['sms', 'mms', 'whatsapp'],
  created_at: '2026-11-25T17:00:00.000Z',
  updated_at: '2026-11-25T17:00:00.000Z',
};
const responses = { 401: common[401], 500: common[500], 503: common[503] };
const dateOrNull = { type: ['string', 'null'], format: 'date-time' };
const MESSAGE_STATUSES = ['scheduled', 'sending', 'sent', 'delivered', 'read', 'undelivered', 'failed', 'canceled', 'suppressed', 'received'];
const operatorMessage = {
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
const unmatchedText = {
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

/** A closed object whose every property is required, with `example` as its one example. */
function exampledSchema(example: Record<string, unknown>, description: string, properties: OpenApiObject): OpenApiObject {
  return { type: 'object', additionalProperties: false, required: Object.keys(example), description, properties, examples: [example] };
}

export const adminApi: ApiPart = {
  tags: [
    {
      name: 'Operator',
      description:
        'The operator API, outside the business routes: the bearer secret `ADMIN_TOKEN`, or a JWT checked like the API\'s whose `aud` is `ADMIN_JWT_AUDIENCE` ' +
        '(a business token is refused). With neither configured these routes are not served (404). Each access is logged with who asked.',
    },
  ],
  schemas: {
    OperatorMessage: exampledSchema(operatorMessage, 'A message as the operator sees it: whose it is, where it is and why it ended so. Never its phone, name or text.', {
      _id: { type: 'string', format: 'uuid' },
      business: { type: 'string' },
      user: { type: 'string', description: 'The user (token subject) whose message it is.' },
      client: { type: ['string', 'null'] },
      direction: { enum: ['outbound', 'inbound'] },
      status: { enum: MESSAGE_STATUSES },
      reason: {
        type: ['string', 'null'],
        description: 'Why it failed, was undelivered, suppressed or canceled, in words (the carrier\'s code in parentheses); null otherwise. The same words as the run\'s details in Temporal.',
      },
      error_code: { type: ['string', 'null'], description: 'The carrier\'s error code.' },
      provider: { type: ['string', 'null'] },
      workflow_id: { type: ['string', 'null'] },
      batch_id: { type: ['string', 'null'], format: 'uuid' },
      send_at: ref('schemas', 'DateTime'),
      deferred_until: dateOrNull,
      created_at: ref('schemas', 'DateTime'),
      updated_at: ref('schemas', 'DateTime'),
      dispatched_at: dateOrNull,
      sent_at: dateOrNull,
      delivered_at: dateOrNull,
      canceled_at: dateOrNull,
      suppressed_at: dateOrNull,
      received_at: dateOrNull,
    }),
    UnmatchedInboundText: exampledSchema(unmatchedText, 'A text no message explains: none went to the phone from that number lately, or several users\' did (`ambiguous`). Kept; a business lists those to its numbers.', {
      _id: { type: 'string', format: 'uuid' },
      provider: { type: 'string' },
      from: { type: 'string', description: 'The number that texted.' },
      to: { type: 'string', description: 'Our number it was sent to.' },
      text: { type: 'string' },
      ambiguous: { type: 'boolean', description: 'More than one user (on the shared sender: business or user) texted the phone from that number lately.' },
      business: { type: ['string', 'null'], description: 'The business whose number it went to (it lists the text at `GET /ext/v2/{businessname}/unmatched-inbound`); null: the shared sender.' },
      received_at: ref('schemas', 'DateTime'),
      created_at: ref('schemas', 'DateTime'),
    }),
    BusinessNumber: {
      type: 'object',
      required: ['business', 'number', 'carrier', 'messaging_service_sid', 'own_account', 'channels', 'created_at', 'updated_at'],
      additionalProperties: false,
      properties: {
        business: { type: 'string' },
        number: { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$' },
        carrier: { enum: ['twilio', 'telnyx', 'vonage', 'simulator'] },
        messaging_service_sid: { type: ['string', 'null'], description: 'Twilio messaging service (or Telnyx messaging profile) to send through instead of the number itself.' },
        own_account: { type: 'boolean', description: 'Whether the business sends with its own carrier account (`credentials`); they are never answered back.' },
        channels: {
          type: 'array',
          items: { enum: ['sms', 'mms', 'whatsapp'] },
          description: 'What it carries: `sms`, `mms` (SMS with media), `whatsapp`. A message goes from a number of the business that carries what it needs.',
        },
        created_at: ref('schemas', 'DateTime'),
        updated_at: ref('schemas', 'DateTime'),
      },
      examples: [registered],
    },
    NumberRegistration: {
      type: 'object',
      required: ['carrier'],
      additionalProperties: false,
      properties: {
        carrier: { enum: ['twilio', 'telnyx', 'vonage', 'simulator'], description: 'Must be the deployment\'s carrier (MESSAGE_PROVIDER).' },
        messaging_service_sid: { type: ['string', 'null'] },
        credentials: {
          type: ['object', 'null'],
          description:
            'The business\'s own carrier account, encrypted at rest (AES-256-GCM under `SECRETS_KEY`), never answered back nor logged. ' +
            'Twilio (and the simulator): `{ "account_sid": "AC…", "auth_token": "…" }` (a subaccount); Telnyx: `{ "api_key": "…", "public_key": "…" }` ' +
            '(the account\'s Ed25519 webhook key, base64 or PEM, which verifies its webhooks); ' +
            'Vonage: `{ "application_id": "…", "private_key": "-----BEGIN PRIVATE KEY-----…", "signature_secret": "…" }` (the signature secret of the ' +
            'application\'s account, which verifies its webhooks; absent: `VONAGE_SIGNATURE_SECRET`, for an application in the deployment\'s account). Absent: kept as stored (the deployment\'s account on a first ' +
            'registration); null: back to the deployment\'s account.',
        },
        channels: {
          type: 'array',
          minItems: 1,
          items: { enum: ['sms', 'mms', 'whatsapp'] },
          description:
            'What the number carries (as registered with the carrier: a WhatsApp sender, an MMS-capable number); repeats are dropped. ' +
            'Absent: kept as stored; `["sms", "mms"]` on a first registration (and for numbers registered before channels existed).',
          examples: [['sms', 'mms', 'whatsapp']],
        },
      },
      examples: [{ carrier: 'twilio', credentials: { account_sid: 'AC0123456789abcdef0123456789abcdef', auth_token: '…' }, channels: ['sms', 'mms', 'whatsapp'] }],
    },
  },
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
            {
              type: 'object',
              required: ['texts', 'next_cursor'],
              additionalProperties: false,
              properties: { texts: { type: 'array', items: ref('schemas', 'UnmatchedInboundText') }, next_cursor: { type: ['string', 'null'] } },
            },
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
          200: json('The numbers.', { type: 'object', required: ['numbers'], additionalProperties: false, properties: { numbers: { type: 'array', items: ref('schemas', 'BusinessNumber') } } }, { example: { numbers: [registered] } }),
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
