import { ASSIGNMENT_SCHEMAS } from '../../../use-cases/assignments/contract';
import { ASSIGNMENT_OPERATIONS as ops, ASSIGNMENTS_TAG } from '../../../use-cases/assignments/operations';
import type { ApiPart } from '../components';
import { inBusiness, PREFIX, queryParameter } from '../components';
import { operationOf } from '../operation';
import { clientIdParameter } from './clients';

const statusParameter = queryParameter('status', '`active`: the current assignments; `all`: also the expired and unassigned ones, for history.', { type: 'string', enum: ['active', 'all'], default: 'active' });
const agentParameter = { name: 'agent', in: 'path', required: true, description: 'The agent\'s id.', schema: { type: 'string' }, example: 'a1' };

export const assignmentsApi: ApiPart = {
  tags: [{ name: 'Assignments', description: ASSIGNMENTS_TAG }],
  contracts: ASSIGNMENT_SCHEMAS,
  paths: {
    [`${PREFIX}/clients/{_id}/assign-agents`]: inBusiness({ post: operationOf('assignAgents', 'Assignments', ops.assignAgents, { body: true }) }, clientIdParameter),
    [`${PREFIX}/clients/{_id}/agents`]: inBusiness({ get: operationOf('listClientAgents', 'Assignments', ops.listClientAgents, { parameters: [statusParameter] }) }, clientIdParameter),
    [`${PREFIX}/clients/{_id}/agents/{agent}`]: inBusiness({ delete: operationOf('unassignAgent', 'Assignments', ops.unassignAgent, { body: true }) }, clientIdParameter, agentParameter),
  },
};
