import { BAD_PATH_EXAMPLE, badBody, badParameters, operations, PAGE_ONLY_REFUSALS } from '../input/operation-docs';
import { INVALID_BUSINESS } from '../input/validation';
import { BUSINESS_NUMBER_EXAMPLE as registered, BusinessNumber, BusinessNumberList, NumberRegistration } from '../numbers/contract';
import { OPERATOR_MESSAGE_EXAMPLE as operatorMessage, OperatorMessage, UNMATCHED_TEXT_EXAMPLE as unmatchedText, UnmatchedInboundTextPage } from './contract';

/* What the document says of the operator API (src/use-cases/input/operation-docs.ts). */

export const OPERATOR_TAG =
  'The operator API, outside the business routes: the bearer secret `ADMIN_TOKEN`, or a JWT checked like the API\'s whose `aud` is `ADMIN_JWT_AUDIENCE` ' +
  '(a business token is refused). With neither configured these routes are not served (404). Each access is logged with who asked.';

export const OPERATOR_OPERATIONS = operations({
  getMessageForOperator: {
    summary: 'Any business\'s message, by id',
    description:
      'For an operator holding a message id from the Temporal UI: its business, user and client, its status and why it ended so (`reason`), and its times. ' +
      'Its phone, name and text are not answered (its user reads them with `GET /messages/{_id}`).',
    responses: {
      200: { description: 'The message.', schema: OperatorMessage, example: operatorMessage },
      400: { description: 'The path is not validly percent-encoded.', examples: BAD_PATH_EXAMPLE },
      404: { description: 'No message has this id (or it is not a message id).', examples: { notFound: 'Message not found' } },
    },
  },
  listUnmatchedInbound: {
    summary: 'Inbound texts no message explains',
    description: 'Texts no message explains, of every business and the shared sender, newest first, a page at a time.',
    responses: {
      200: { description: 'A page of texts; `next_cursor` is null on the last.', schema: UnmatchedInboundTextPage, example: { texts: [unmatchedText], next_cursor: null } },
      400: { description: '`limit` or `cursor` is not valid.', examples: PAGE_ONLY_REFUSALS },
    },
  },
  listBusinessNumbers: {
    summary: 'The business\'s numbers',
    description: 'Its numbers now registered, by number. A retired number is not listed.',
    responses: {
      200: { description: 'The numbers.', schema: BusinessNumberList, example: { numbers: [registered] } },
      400: { description: 'The business name is not valid.', examples: { badBusiness: INVALID_BUSINESS } },
    },
  },
  putBusinessNumber: {
    summary: 'Register a number for a business (or change its registration)',
    description:
      'The business sends from its numbers (the same one for the same phone), and texts to them reach it alone: replies, STOP and START, receipts. ' +
      'A number belongs to one business at a time; the deployment\'s shared sender belongs to none.',
    body: { schema: NumberRegistration },
    responses: {
      200: { description: 'Registered.', schema: BusinessNumber, example: registered },
      400: badBody('A field is not valid.', {
        badNumber: 'Invalid number: must be an E.164 phone number such as +14155550123',
        otherCarrier: 'Invalid carrier: this deployment sends through twilio',
        badCredentials: 'Invalid credentials.account_sid: must be AC followed by 32 hexadecimal digits',
        badChannel: 'Invalid channels.0: each must be sms, mms, whatsapp or rcs',
        noChannel: 'Invalid channels: must name at least one of sms, mms, whatsapp, rcs',
        rcsWithoutAgent: 'Invalid rcs_agent: a number that carries rcs needs its RCS agent as the carrier names it',
        rcsWithoutService: 'Invalid messaging_service_sid: RCS on Twilio goes through the Messaging Service whose sender pool holds the RCS sender and this number',
        badRcsAgent: 'Invalid rcs_agent: must be 1-128 letters, digits, _ : . @ or -',
      }),
      409: {
        description: 'Another business holds the number, or it is the shared sender, or the deployment has no carrier, or its `rcs_agent` is another number\'s.',
        examples: {
          held: '+15005550001 belongs to another business: retire it there first',
          shared: '+15005550006 is the deployment\'s shared sender: it belongs to no business',
          noCarrier: 'This deployment sends through no carrier (MESSAGE_PROVIDER is log or webhook): it has no numbers',
          agentTaken: 'RCS agent rcs:acme_xyz_agent is the RCS sender of +15005550001: retire it there first',
        },
      },
    },
  },
  refreshNumberRegistration: {
    summary: 'Read a number\'s A2P registration from its carrier now',
    description:
      'Its 10DLC brand and campaign (with the number\'s place in it), or its toll-free verification, as the carrier\'s API says them, read with the business\'s own account when it has one. ' +
      'A change is recorded and sent as `number.registration_changed`. The schedule reads every number hourly; a carrier\'s registration refusal (Twilio 30034 and the like) reads it at once.',
    responses: {
      200: { description: 'The number with its registration as read now.', schema: BusinessNumber, example: registered },
      400: badParameters('The path is not valid.', { badNumber: 'Invalid number: must be an E.164 phone number such as +14155550123' }),
      404: { description: 'The business holds no such number.', examples: { notFound: 'Number not found' } },
      409: { description: 'The deployment has no carrier.', examples: { noCarrier: 'This deployment sends through no carrier (MESSAGE_PROVIDER is log or webhook): it has no numbers' } },
    },
  },
  listNumbersAcrossBusinesses: {
    summary: 'Every business\'s numbers, with their A2P registration',
    description: 'Every number now registered, by business and number. `can_send=false`: only those whose registration, as last read, forbids their sends (`can_send=true`: those it allows; a number never read is in neither).',
    responses: {
      200: { description: 'The numbers.', schema: BusinessNumberList, example: { numbers: [registered] } },
      400: { description: '`can_send` is not `true` or `false`.', examples: { badFilter: 'Invalid can_send: must be true or false' } },
    },
  },
  retireBusinessNumber: {
    summary: 'Retire a number',
    description:
      'The business no longer sends from it and another business may register it. Messages already sent from it keep it as their sender: their receipts ' +
      'and the replies to them still reach this business (until another registers the number). A message still scheduled on it fails when due ' +
      '(`Its sending number was retired from the business`).',
    responses: {
      204: { description: 'Retired.' },
      400: badParameters('The path is not valid.', { badNumber: 'Invalid number: must be an E.164 phone number such as +14155550123' }),
      404: { description: 'The business holds no such number.', examples: { notFound: 'Number not found' } },
    },
  },
});
