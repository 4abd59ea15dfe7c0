import type { ApiPart } from '../components';
import { BAD_PATH, BAD_PATH_EXAMPLE, BODY_EXAMPLES, businessResponses, inBusiness, json, operation, PREFIX, problem, ref, UNKNOWN_BUSINESS } from '../components';

export const agentsApi: ApiPart = {
  tags: [{ name: 'Agents', description: 'The people assigned to clients. Each belongs to one user in one business.' }],
  schemas: {
    NewAgent: {
      type: 'object',
      description: 'Every field is optional; unknown fields are ignored.',
      properties: {
        _id: { ...ref('schemas', 'ResourceId'), description: 'Chosen by the caller; a UUID is generated when absent.' },
        name: { type: ['string', 'null'], maxLength: 200, examples: ['Grace Hopper'] },
      },
    },
    Agent: {
      type: 'object',
      required: ['_id', 'name', 'created_at'],
      additionalProperties: false,
      properties: { _id: ref('schemas', 'ResourceId'), name: { type: ['string', 'null'] }, created_at: ref('schemas', 'DateTime') },
    },
    AgentList: {
      type: 'object',
      required: ['agents'],
      additionalProperties: false,
      properties: { agents: { type: 'array', items: ref('schemas', 'Agent'), description: 'Oldest first.' } },
    },
  },
  paths: {
    [`${PREFIX}/agents`]: inBusiness({
      post: operation('createAgent', 'Agents', 'Create an agent', {
        requestBody: { required: false, content: { 'application/json': { schema: ref('schemas', 'NewAgent'), example: { _id: 'a1', name: 'Grace Hopper' } } } },
        responses: {
          201: json('Created.', ref('schemas', 'Agent'), {
            headers: { Location: ref('headers', 'Location') },
            example: { _id: 'a1', name: 'Grace Hopper', created_at: '2026-11-22T05:14:13.462Z' },
          }),
          400: problem(400, 'A field is invalid; the detail names it.', {
            invalidId: 'Invalid _id: must be 1-128 characters of A-Z a-z 0-9 . _ : @ -',
            invalidName: 'Invalid name: Invalid input: expected string, received number',
            notAnObject: 'Invalid request body: Invalid input: expected object, received null',
            ...BODY_EXAMPLES,
            ...BAD_PATH_EXAMPLE,
          }),
          404: UNKNOWN_BUSINESS,
          409: problem(409, 'The caller already has an agent with this `_id` in this business.', { duplicate: 'Agent a1 already exists' }),
          ...businessResponses(true),
        },
      }),
      get: operation('listAgents', 'Agents', 'List the caller\'s agents', {
        responses: {
          200: json('The caller\'s agents in this business.', ref('schemas', 'AgentList')),
          400: BAD_PATH,
          404: UNKNOWN_BUSINESS,
          ...businessResponses(false),
        },
      }),
    }),
  },
};
