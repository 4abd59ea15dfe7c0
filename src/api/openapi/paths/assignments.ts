import { ASSIGNMENT_SCHEMAS, AssignmentListQuery } from '../../../use-cases/assignments/contract';
import { ASSIGNMENT_OPERATIONS as ops, ASSIGNMENTS_TAG } from '../../../use-cases/assignments/operations';
import type { ApiPart } from '../components';
import { inBusiness, PREFIX } from '../components';
import { queryParameters } from '../from-zod';
import { operationOf } from '../operation';
import { clientIdParameter } from './clients';

const agentParameter = { name: 'agent', in: 'path', required: true, description: 'The agent\'s id.', schema: { type: 'string' }, example: 'a1' };

export const assignmentsApi: ApiPart = {
  tags: [{ name: 'Assignments', description: ASSIGNMENTS_TAG }],
  contracts: ASSIGNMENT_SCHEMAS,
  paths: {
    [`${PREFIX}/clients/{_id}/assign-agents`]: inBusiness({ post: operationOf('assignAgents', 'Assignments', ops.assignAgents, { body: true }) }, clientIdParameter),
    [`${PREFIX}/clients/{_id}/agents`]: inBusiness({ get: operationOf('listClientAgents', 'Assignments', ops.listClientAgents, { parameters: queryParameters(AssignmentListQuery) }) }, clientIdParameter),
    [`${PREFIX}/clients/{_id}/agents/{agent}`]: inBusiness({ delete: operationOf('unassignAgent', 'Assignments', ops.unassignAgent, { body: true }) }, clientIdParameter, agentParameter),
  },
};
