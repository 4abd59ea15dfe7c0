import { badBody, badParameters, notFound, operations } from '../input/operation-docs';
import { Client, ClientChanges, ClientList, Consent, ConsentList, ConsentRecord, NewClient } from './contract';

/* What the document says of the clients' routes and their consents (src/use-cases/input/operation-docs.ts). */

export const CLIENTS_TAG = 'The people messages go to and agents are assigned to. Each belongs to one user in one business.';

/** How a page's `limit` and `cursor` are refused. */
export const PAGE_REFUSALS = {
  invalidLimit: 'Invalid limit: Too big: expected number to be <=100',
  invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
};
const FIELD_REFUSALS = {
  invalidPhone: 'Invalid phone: must be an E.164 phone number such as +14155550123',
  invalidName: 'Invalid name: Too big: expected string to have <=200 characters',
  invalidTimezone: 'Invalid timezone: must be an IANA time zone such as America/New_York',
  notAnObject: 'Invalid request body: Invalid input: expected object, received null',
};
const clientNotFound = { clientNotFound: 'Client not found' };
const channelNotFound = { channelNotFound: 'Consent channel not found: consents are kept for whatsapp' };
const CLIENT_NOT_FOUND = notFound('No such client of the caller in this business.', clientNotFound);
const consent = { channel: 'whatsapp', source: 'web form, 2026-11-20', at: '2026-11-20T14:03:00.000Z', updated_at: '2026-11-27T10:00:00.000Z' };

export const CLIENT_OPERATIONS = operations({
  listClients: {
    summary: 'List the caller\'s clients',
    description: 'The caller\'s clients in this business, oldest first, one page at a time as `GET /messages`; erased clients are not listed.',
    responses: {
      200: { description: 'One page.', schema: ClientList },
      400: badParameters('A query parameter is invalid; the detail names it.', { invalidPhone: FIELD_REFUSALS.invalidPhone, emptyQ: 'Invalid q: must not be empty', ...PAGE_REFUSALS }),
    },
  },
  createClient: {
    summary: 'Create a client',
    body: { schema: NewClient, required: false, example: { _id: 'c1', name: 'Ada Lovelace', phone: '+1 415 555 0100', timezone: 'America/New_York' } },
    responses: {
      201: {
        description: 'Created.',
        schema: Client,
        headers: ['Location'],
        example: { _id: 'c1', name: 'Ada Lovelace', phone: '+14155550100', timezone: 'America/New_York', created_at: '2026-11-22T05:14:13.462Z' },
      },
      400: badBody('A field is invalid; the detail names it.', { invalidId: 'Invalid _id: must be 1-128 characters of A-Z a-z 0-9 . _ : @ -', ...FIELD_REFUSALS }),
      409: { description: 'The caller already has a client with this `_id` in this business.', examples: { duplicate: 'Client c1 already exists' } },
    },
  },
  getClient: { summary: 'Read a client', responses: { 200: { description: 'The client.', schema: Client }, 404: CLIENT_NOT_FOUND } },
  updateClient: {
    summary: 'Change a client\'s name, phone or time zone',
    body: { schema: ClientChanges, required: false, media: { 'application/json': { example: { phone: '+44 20 7946 0958', timezone: 'Europe/London' } }, 'application/merge-patch+json': {} } },
    responses: {
      200: { description: 'The client as changed.', schema: Client },
      400: badBody('A field is invalid; the detail names it. Nothing is changed.', { ...FIELD_REFUSALS, changedId: "Invalid _id: a client's id cannot be changed" }),
      404: CLIENT_NOT_FOUND,
    },
  },
  deleteClient: {
    summary: 'Erase a client',
    description:
      'Its messages not yet sent are canceled (`canceled_by` `{ "actor": "user", "reason": "client_deleted" }`); its active assignments end ' +
      '(`ended_by` the same) and its rotation stops; its messages and events keep their ids, times and statuses but lose its phone, name and ' +
      'texts (and its assignments their notes); `client.deleted` is recorded. The id is then free for a new client. Asking again is a 404.',
    responses: { 204: { description: 'Erased.' }, 404: CLIENT_NOT_FOUND },
  },
  listClientConsents: {
    summary: 'A client\'s consents',
    description: 'The channels the client opted in to, by channel.',
    responses: { 200: { description: 'Its consents.', schema: ConsentList, example: { consents: [consent] } }, 404: CLIENT_NOT_FOUND },
  },
  putClientConsent: {
    summary: 'Record a client\'s opt-in to a channel',
    description:
      'WhatsApp requires the client\'s opt-in before a business starts a conversation: a WhatsApp template goes only to a client whose consent is recorded ' +
      '(a reply inside the 24-hour window needs none: the client wrote first). Recording it again replaces `source` and `at`. Consents are erased with their client.',
    body: { schema: ConsentRecord, example: { source: 'web form, 2026-11-20', at: '2026-11-20T14:03:00.000Z' } },
    responses: {
      200: { description: 'The consent as recorded.', schema: Consent, example: consent },
      400: badBody('A field is invalid; the detail names it. Nothing is stored.', {
        invalidSource: 'Invalid source: must be a non-empty string of at most 200 characters saying where the client opted in',
        invalidAt: 'Invalid at: must be an ISO 8601 date-time, not in the future',
      }),
      404: notFound('No such client of the caller in this business (checked first), or not a channel consents are kept for.', { ...clientNotFound, ...channelNotFound }),
    },
  },
  deleteClientConsent: {
    summary: 'Withdraw a client\'s opt-in',
    description: 'The client withdrew it: a template may no longer start a WhatsApp conversation with it. Consent is checked at accept: a template message accepted before still goes when due.',
    responses: {
      204: { description: 'Withdrawn.' },
      404: notFound('No such client of the caller, not a channel consents are kept for, or no consent recorded.', { ...clientNotFound, ...channelNotFound, consentNotFound: 'Consent not found' }),
    },
  },
});
