import { ROUTING_SCHEMAS, RoutingDecisionQuery } from '../../../use-cases/routing/contract';
import { ROUTING_OPERATIONS as ops, ROUTING_TAG } from '../../../use-cases/routing/operations';
import type { ApiPart } from '../components';
import { idParameter, inBusiness, pathParameter, PREFIX } from '../components';
import { queryParameters } from '../from-zod';
import { operationOf } from '../operation';
import { clientIdParameter } from './clients';

const ownedIdParameter = (what: string, example: string) => idParameter(`The ${what}'s id. Another user's or business's is the same 404 as a missing one.`, example);
const decisionIdParameter = pathParameter('id', 'The decision\'s id (`decision_id`).', { type: 'string' });
const op = (operationId: keyof typeof ops, body = false, wiring = {}) => operationOf(operationId, 'Routing', ops[operationId], { body, ...wiring });

export const routingApi: ApiPart = {
  tags: [{ name: 'Routing', description: ROUTING_TAG }],
  contracts: ROUTING_SCHEMAS,
  paths: {
    [`${PREFIX}/teams`]: inBusiness({ get: op('listTeams') }),
    [`${PREFIX}/teams/{_id}`]: inBusiness({ put: op('putTeam', true), get: op('getTeam'), delete: op('deleteTeam') }, ownedIdParameter('team', 'sales')),
    [`${PREFIX}/routing-policies`]: inBusiness({ get: op('listRoutingPolicies') }),
    [`${PREFIX}/routing-policies/{_id}`]: inBusiness(
      { put: op('putRoutingPolicy', true), get: op('getRoutingPolicy'), delete: op('deleteRoutingPolicy') },
      ownedIdParameter('routing policy', 'sales'),
    ),
    [`${PREFIX}/routing-policies/{_id}/queue`]: inBusiness({ get: op('getRoutingQueue') }, ownedIdParameter('routing policy', 'sales')),
    [`${PREFIX}/clients/{_id}/route`]: inBusiness(
      {
        post: op('routeClient', true, { parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, description: '1-255 printable ASCII characters.', schema: { type: 'string' } }] }),
        delete: op('cancelRoute', false, { parameters: [{ name: 'policy', in: 'query', required: false, schema: { type: 'string' } }] }),
      },
      clientIdParameter,
    ),
    [`${PREFIX}/routing-decisions`]: inBusiness({
      get: op('listRoutingDecisions', false, { parameters: queryParameters(RoutingDecisionQuery) }),
    }),
    [`${PREFIX}/routing-decisions/{id}`]: inBusiness({ get: op('getRoutingDecision') }, decisionIdParameter),
    [`${PREFIX}/agents/{_id}/reroute`]: inBusiness({ post: op('rerouteAgent', true) }, ownedIdParameter('agent', 'a1')),
    [`${PREFIX}/routing-decisions/{id}/accept`]: inBusiness({ post: op('acceptRoutingDecision', true) }, decisionIdParameter),
  },
};
