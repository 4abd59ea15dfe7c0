import type { ApiPart } from '../components';
import { BAD_PATH_EXAMPLE, businessResponses, json, BODY_EXAMPLES, NO_ROUTE_EXAMPLE, PREFIX, problem, ref } from '../components';
import { pageParameters } from './clients';

const agentIdParameter = {
  name: '_id',
  in: 'path',
  required: true,
  description: 'The agent\'s id. One of another user or business, a deleted one, or one that could never exist, is the same 404 as a missing one.',
  schema: { type: 'string' },
  example: 'a1',
};

const agentNotFound = { agentNotFound: 'Agent not found', ...NO_ROUTE_EXAMPLE };

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
    HeldClientList: {
      type: 'object',
      required: ['agent', 'clients', 'next_cursor'],
      additionalProperties: false,
      properties: {
        agent: ref('schemas', 'ResourceId'),
        clients: {
          type: 'array',
          description: 'The clients the agent holds now (an active assignment whose `dt_until` is ahead), oldest assignment first.',
          items: {
            type: 'object',
            required: ['client', 'dt_until', 'rotation', 'assigned_at', 'workflow_id'],
            additionalProperties: false,
            properties: {
              client: ref('schemas', 'ResourceId'),
              dt_until: { ...ref('schemas', 'DateTime'), description: 'When the assignment ends.' },
              rotation: { type: 'boolean', description: 'Made by the client\'s rotation.' },
              assigned_at: ref('schemas', 'DateTime'),
              workflow_id: { type: 'string', pattern: '^assignment/' },
            },
          },
        },
        next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' },
      },
    },
    AgentList: {
      type: 'object',
      required: ['agents'],
      additionalProperties: false,
      properties: { agents: { type: 'array', items: ref('schemas', 'Agent'), description: 'Oldest first.' } },
    },
  },
  paths: {
    [`${PREFIX}/agents`]: {
      parameters: [ref('parameters', 'businessname')],
      post: {
        operationId: 'createAgent',
        tags: ['Agents'],
        summary: 'Create an agent',
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
          404: problem(404, 'The business name is not one the service accepts.', NO_ROUTE_EXAMPLE),
          409: problem(409, 'The caller already has an agent with this `_id` in this business.', { duplicate: 'Agent a1 already exists' }),
          ...businessResponses(true),
        },
      },
      get: {
        operationId: 'listAgents',
        tags: ['Agents'],
        summary: 'List the caller\'s agents',
        responses: {
          200: json('The caller\'s agents in this business.', ref('schemas', 'AgentList')),
          400: problem(400, 'The path is not validly percent-encoded.', BAD_PATH_EXAMPLE),
          404: problem(404, 'The business name is not one the service accepts.', NO_ROUTE_EXAMPLE),
          ...businessResponses(false),
        },
      },
    },
    [`${PREFIX}/agents/{_id}`]: {
      parameters: [ref('parameters', 'businessname'), agentIdParameter],
      get: {
        operationId: 'getAgent',
        tags: ['Agents'],
        summary: 'Read an agent',
        responses: {
          200: json('The agent.', ref('schemas', 'Agent')),
          400: problem(400, 'The path is not validly percent-encoded.', BAD_PATH_EXAMPLE),
          404: problem(404, 'No such agent of the caller in this business.', agentNotFound),
          ...businessResponses(false),
        },
      },
      delete: {
        operationId: 'deleteAgent',
        tags: ['Agents'],
        summary: 'Delete an agent',
        description:
          'Its active assignments end (`ended_by` `{ "actor": "user", "reason": "agent_deleted" }`, an `assignment.unassigned` each). It leaves the caller\'s ' +
          'rotations, which go on with the other agents from the same `starts_at`; when it held the period in progress, the rest of that period goes at once ' +
          'to the agent the shortened list names. A rotation left with no agent stops (`rotation.stopped`, reason `agent_deleted`). The id is then free ' +
          'for a new agent. Asking again is a 404.',
        responses: {
          204: { description: 'Deleted.' },
          400: problem(400, 'The path is not validly percent-encoded.', BAD_PATH_EXAMPLE),
          404: problem(404, 'No such agent of the caller in this business.', agentNotFound),
          ...businessResponses(false),
        },
      },
    },
    [`${PREFIX}/agents/{_id}/clients`]: {
      parameters: [ref('parameters', 'businessname'), agentIdParameter],
      get: {
        operationId: 'listAgentClients',
        tags: ['Agents'],
        summary: 'The clients an agent holds now',
        description: 'One page at a time as `GET /messages`.',
        parameters: pageParameters,
        responses: {
          200: json('One page.', ref('schemas', 'HeldClientList')),
          400: problem(400, 'A query parameter is invalid; the detail names it.', {
            invalidLimit: 'Invalid limit: Too big: expected number to be <=100',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
            ...BAD_PATH_EXAMPLE,
          }),
          404: problem(404, 'No such agent of the caller in this business.', agentNotFound),
          ...businessResponses(false),
        },
      },
    },
  },
};
