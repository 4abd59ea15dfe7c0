import { CLIENT_SCHEMAS, ClientListQuery } from '../../../use-cases/clients/contract';
import { CLIENT_OPERATIONS as ops, CLIENTS_TAG } from '../../../use-cases/clients/operations';
import type { ApiPart } from '../components';
import { idParameter, inBusiness, PREFIX } from '../components';
import { queryParameters } from '../from-zod';
import { operationOf, type Wiring } from '../operation';

export const clientIdParameter = idParameter('The client\'s id. One of another user or business, or one that could never exist, is the same 404 as a missing one.', 'c1');
const op = (operationId: keyof typeof ops, wiring: Wiring = {}) => operationOf(operationId, 'Clients', ops[operationId], wiring);

export const clientsApi: ApiPart = {
  tags: [{ name: 'Clients', description: CLIENTS_TAG }],
  contracts: CLIENT_SCHEMAS,
  paths: {
    [`${PREFIX}/clients`]: inBusiness({
      get: op('listClients', { parameters: queryParameters(ClientListQuery) }),
      post: op('createClient', { body: true }),
    }),
    [`${PREFIX}/clients/{_id}`]: inBusiness({ get: op('getClient'), patch: op('updateClient', { body: true }), delete: op('deleteClient') }, clientIdParameter),
  },
};
