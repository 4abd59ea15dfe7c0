import { CLIENT_SCHEMAS } from '../../../use-cases/clients/contract';
import { CLIENT_OPERATIONS as ops, CLIENTS_TAG } from '../../../use-cases/clients/operations';
import type { ApiPart } from '../components';
import { idParameter, inBusiness, pageParameters, PREFIX, queryParameter } from '../components';
import { operationOf, type Wiring } from '../operation';

export const clientIdParameter = idParameter('The client\'s id. One of another user or business, or one that could never exist, is the same 404 as a missing one.', 'c1');
const op = (operationId: keyof typeof ops, wiring: Wiring = {}) => operationOf(operationId, 'Clients', ops[operationId], wiring);

export const clientsApi: ApiPart = {
  tags: [{ name: 'Clients', description: CLIENTS_TAG }],
  contracts: CLIENT_SCHEMAS,
  paths: {
    [`${PREFIX}/clients`]: inBusiness({
      get: op('listClients', {
        parameters: [
          queryParameter('phone', 'Only clients with exactly this phone (spaces, dashes, dots and parentheses are removed; the rest must be E.164; `+` is `%2B` in a URL).', { type: 'string', maxLength: 64 }, '+14155550100'),
          queryParameter('q', 'Only clients whose name starts with this, case-insensitively.', { type: 'string', minLength: 1, maxLength: 200 }, 'ad'),
          ...pageParameters(),
        ],
      }),
      post: op('createClient', { body: true }),
    }),
    [`${PREFIX}/clients/{_id}`]: inBusiness({ get: op('getClient'), patch: op('updateClient', { body: true }), delete: op('deleteClient') }, clientIdParameter),
  },
};
