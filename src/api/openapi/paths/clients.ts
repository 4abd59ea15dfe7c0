import { CLIENT_SCHEMAS } from '../../../use-cases/clients/contract';
import type { ApiPart } from '../components';
import { badBody, badParameters, idParameter, inBusiness, json, NO_ROUTE_EXAMPLE, operation, pageParameters, PREFIX, problem, queryParameter, ref, routeResponses } from '../components';

export const clientIdParameter = idParameter('The client\'s id. One of another user or business, or one that could never exist, is the same 404 as a missing one.', 'c1');

const clientNotFound = { clientNotFound: 'Client not found' };

/** How a page's `limit` and `cursor` are refused. */
export const pageExamples = {
  invalidLimit: 'Invalid limit: Too big: expected number to be <=100',
  invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
};

const fieldErrors = {
  invalidPhone: 'Invalid phone: must be an E.164 phone number such as +14155550123',
  invalidName: 'Invalid name: Too big: expected string to have <=200 characters',
  invalidTimezone: 'Invalid timezone: must be an IANA time zone such as America/New_York',
  notAnObject: 'Invalid request body: Invalid input: expected object, received null',
};

export const clientsApi: ApiPart = {
  tags: [{ name: 'Clients', description: 'The people messages go to and agents are assigned to. Each belongs to one user in one business.' }],
  contracts: CLIENT_SCHEMAS,
  paths: {
    [`${PREFIX}/clients`]: inBusiness({
      get: operation('listClients', 'Clients', 'List the caller\'s clients', {
        description: 'The caller\'s clients in this business, oldest first, one page at a time as `GET /messages`; erased clients are not listed.',
        parameters: [
          queryParameter('phone', 'Only clients with exactly this phone (spaces, dashes, dots and parentheses are removed; the rest must be E.164; `+` is `%2B` in a URL).', { type: 'string', maxLength: 64 }, '+14155550100'),
          queryParameter('q', 'Only clients whose name starts with this, case-insensitively.', { type: 'string', minLength: 1, maxLength: 200 }, 'ad'),
          ...pageParameters(),
        ],
        responses: routeResponses(false, {
          200: json('One page.', ref('schemas', 'ClientList')),
          400: badParameters('A query parameter is invalid; the detail names it.', {
            invalidPhone: 'Invalid phone: must be an E.164 phone number such as +14155550123',
            emptyQ: 'Invalid q: must not be empty',
            ...pageExamples,
          }),
        }),
      }),
      post: operation('createClient', 'Clients', 'Create a client', {
        requestBody: {
          required: false,
          content: { 'application/json': { schema: ref('schemas', 'NewClient'), example: { _id: 'c1', name: 'Ada Lovelace', phone: '+1 415 555 0100', timezone: 'America/New_York' } } },
        },
        responses: routeResponses(true, {
          201: json('Created.', ref('schemas', 'Client'), {
            headers: { Location: ref('headers', 'Location') },
            example: { _id: 'c1', name: 'Ada Lovelace', phone: '+14155550100', timezone: 'America/New_York', created_at: '2026-11-22T05:14:13.462Z' },
          }),
          400: badBody('A field is invalid; the detail names it.', {
            invalidId: 'Invalid _id: must be 1-128 characters of A-Z a-z 0-9 . _ : @ -',
            invalidPhone: 'Invalid phone: must be an E.164 phone number such as +14155550123',
            invalidName: 'Invalid name: Too big: expected string to have <=200 characters',
            invalidTimezone: 'Invalid timezone: must be an IANA time zone such as America/New_York',
            notAnObject: 'Invalid request body: Invalid input: expected object, received null',
          }),
          409: problem(409, 'The caller already has a client with this `_id` in this business.', { duplicate: 'Client c1 already exists' }),
        }),
      }),
    }),
    [`${PREFIX}/clients/{_id}`]: inBusiness({
      get: operation('getClient', 'Clients', 'Read a client', {
        responses: routeResponses(false, {
          200: json('The client.', ref('schemas', 'Client')),
          404: problem(404, 'No such client of the caller in this business.', { ...clientNotFound, ...NO_ROUTE_EXAMPLE }),
        }),
      }),
      patch: operation('updateClient', 'Clients', 'Change a client\'s name, phone or time zone', {
        requestBody: {
          required: false,
          content: {
            'application/json': { schema: ref('schemas', 'ClientChanges'), example: { phone: '+44 20 7946 0958', timezone: 'Europe/London' } },
            'application/merge-patch+json': { schema: ref('schemas', 'ClientChanges') },
          },
        },
        responses: routeResponses(true, {
          200: json('The client as changed.', ref('schemas', 'Client')),
          400: badBody('A field is invalid; the detail names it. Nothing is changed.', {
            ...fieldErrors,
            changedId: "Invalid _id: a client's id cannot be changed",
          }),
          404: problem(404, 'No such client of the caller in this business.', { ...clientNotFound, ...NO_ROUTE_EXAMPLE }),
        }),
      }),
      delete: operation('deleteClient', 'Clients', 'Erase a client', {
        description:
          'Its messages not yet sent are canceled (`canceled_by` `{ "actor": "user", "reason": "client_deleted" }`); its active assignments end ' +
          '(`ended_by` the same) and its rotation stops; its messages and events keep their ids, times and statuses but lose its phone, name and ' +
          'texts (and its assignments their notes); `client.deleted` is recorded. The id is then free for a new client. Asking again is a 404.',
        responses: routeResponses(false, {
          204: { description: 'Erased.' },
          404: problem(404, 'No such client of the caller in this business.', { ...clientNotFound, ...NO_ROUTE_EXAMPLE }),
        }),
      }),
    }, clientIdParameter),
  },
};
