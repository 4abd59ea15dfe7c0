import { AGENT_SCHEMAS } from '../../../use-cases/agents/contract';
import { AGENT_OPERATIONS as ops, AGENTS_TAG } from '../../../use-cases/agents/operations';
import type { ApiPart } from '../components';
import { idParameter, inBusiness, PREFIX } from '../components';
import { pageParameters } from '../from-zod';
import { operationOf, type Wiring } from '../operation';

const agentIdParameter = idParameter('The agent\'s id. One of another user or business, a deleted one, or one that could never exist, is the same 404 as a missing one.', 'a1');
const absenceParameter = { name: 'absence', in: 'path', required: true, description: 'The absence\'s `_id`.', schema: { type: 'string' } };
const op = (operationId: keyof typeof ops, wiring: Wiring = {}) => operationOf(operationId, 'Agents', ops[operationId], wiring);

export const agentsApi: ApiPart = {
  tags: [{ name: 'Agents', description: AGENTS_TAG }],
  contracts: AGENT_SCHEMAS,
  paths: {
    [`${PREFIX}/agents`]: inBusiness({ post: op('createAgent', { body: true }), get: op('listAgents') }),
    [`${PREFIX}/agents/{_id}`]: inBusiness({ get: op('getAgent'), patch: op('updateAgent', { body: true }), delete: op('deleteAgent') }, agentIdParameter),
    [`${PREFIX}/agents/{_id}/absences`]: inBusiness({ post: op('addAgentAbsence', { body: true }), get: op('listAgentAbsences') }, agentIdParameter),
    [`${PREFIX}/agents/{_id}/absences/{absence}`]: inBusiness({ delete: op('endAgentAbsence') }, agentIdParameter, absenceParameter),
    [`${PREFIX}/agents/{_id}/clients`]: inBusiness({ get: op('listAgentClients', { parameters: pageParameters() }) }, agentIdParameter),
  },
};
