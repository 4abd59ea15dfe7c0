import { AGENT_SCHEMAS } from '../../../use-cases/agents/contract';
import type { ApiPart } from '../components';
import { badBody, badParameters, idParameter, inBusiness, json, NO_ROUTE_EXAMPLE, operation, pageParameters, PREFIX, problem, ref, routeResponses } from '../components';
import { pageExamples } from './clients';


const AGENT_EXAMPLE = {
  _id: 'a1',
  name: 'Grace Hopper',
  timezone: 'Europe/Paris',
  working_hours: { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']] },
  presence: 'available',
  capacity: 2,
  load: 1,
  created_at: '2026-11-22T05:14:13.462Z',
};

const agentIdParameter = idParameter('The agent\'s id. One of another user or business, a deleted one, or one that could never exist, is the same 404 as a missing one.', 'a1');

const AGENT_NOT_FOUND = problem(404, 'No such agent of the caller in this business (or the business name is not one the service accepts).', { agentNotFound: 'Agent not found', ...NO_ROUTE_EXAMPLE });

export const agentsApi: ApiPart = {
  tags: [{ name: 'Agents', description: 'The people assigned to clients. Each belongs to one user in one business.' }],
  contracts: AGENT_SCHEMAS,
  paths: {
    [`${PREFIX}/agents`]: inBusiness({
      post: operation('createAgent', 'Agents', 'Create an agent', {
        requestBody: { required: false, content: { 'application/json': { schema: ref('schemas', 'NewAgent'), example: { _id: 'a1', name: 'Grace Hopper' } } } },
        responses: routeResponses(true, {
          201: json('Created.', ref('schemas', 'Agent'), {
            headers: { Location: ref('headers', 'Location') },
            example: { ...AGENT_EXAMPLE, working_hours: null, timezone: null, load: 0 },
          }),
          400: badBody('A field is invalid; the detail names it.', {
            invalidId: 'Invalid _id: must be 1-128 characters of A-Z a-z 0-9 . _ : @ -',
            invalidName: 'Invalid name: Invalid input: expected string, received number',
            notAnObject: 'Invalid request body: Invalid input: expected object, received null',
          }),
          409: problem(409, 'The caller already has an agent with this `_id` in this business.', { duplicate: 'Agent a1 already exists' }),
        }),
      }),
      get: operation('listAgents', 'Agents', 'List the caller\'s agents', {
        responses: routeResponses(false, { 200: json('The caller\'s agents in this business.', ref('schemas', 'AgentList')) }),
      }),
    }),
    [`${PREFIX}/agents/{_id}`]: inBusiness({
      get: operation('getAgent', 'Agents', 'Read an agent, with its availability and load', {
        responses: routeResponses(false, { 200: json('The agent.', ref('schemas', 'Agent'), { example: AGENT_EXAMPLE }), 404: AGENT_NOT_FOUND }),
      }),
      patch: operation('updateAgent', 'Agents', 'Change an agent\'s name, time zone, working hours, presence or capacity (JSON merge patch)', {
        description: 'A presence back to `available`, a new capacity or new hours may free room: the caller\'s waiting clients are routed again at once.',
        requestBody: {
          required: true,
          content: {
            'application/merge-patch+json': { schema: ref('schemas', 'AgentPatch'), example: { presence: 'away' } },
            'application/json': { schema: ref('schemas', 'AgentPatch'), example: { timezone: 'Europe/Paris', working_hours: { mon: [['09:00', '17:00']] }, capacity: 2 } },
          },
        },
        responses: routeResponses(true, {
          200: json('The agent as changed.', ref('schemas', 'Agent'), { example: AGENT_EXAMPLE }),
          400: badBody('A field is invalid; the detail names it. Nothing is changed.', {
            invalidZone: 'Invalid timezone: must be an IANA time zone such as America/New_York',
            invalidPresence: 'Invalid presence: Invalid option: expected one of "available"|"away"',
            invalidInterval: 'Invalid working_hours.mon.0: must end after it starts (split a night shift at midnight)',
            hoursWithoutZone: "Invalid working_hours: needs the agent's timezone (an IANA name such as Europe/Paris)",
            notAnObject: 'Invalid request body: must be a JSON object (a merge patch)',
          }),
          404: AGENT_NOT_FOUND,
        }),
      }),
      delete: operation('deleteAgent', 'Agents', 'Delete an agent', {
        description:
          'Its active assignments end (`ended_by` `{ "actor": "user", "reason": "agent_deleted" }`, an `assignment.unassigned` each). It leaves the caller\'s ' +
          'rotations, which go on with the other agents from the same `starts_at`; when it held the period in progress, the rest of that period goes at once ' +
          'to the agent the shortened list names. A rotation left with no agent stops (`rotation.stopped`, reason `agent_deleted`). The id is then free ' +
          'for a new agent. Asking again is a 404.',
        responses: routeResponses(false, { 204: { description: 'Deleted.' }, 404: AGENT_NOT_FOUND }),
      }),
    }, agentIdParameter),
    [`${PREFIX}/agents/{_id}/absences`]: inBusiness({
      post: operation('addAgentAbsence', 'Agents', 'Record a time the agent is away: routing does not pick it then', {
        requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'NewAbsence'), example: { from: '2026-12-21', until: '2027-01-04', note: 'holidays' } } } },
        responses: routeResponses(true, {
          201: json('Recorded.', ref('schemas', 'Absence'), { example: { _id: '9b2f4d1e-8a7c-4e3b-9f10-2a6b5c4d3e21', from: '2026-12-21T00:00:00.000Z', until: '2027-01-04T00:00:00.000Z', note: 'holidays' } }),
          400: badBody('A field is invalid; the detail names it.', {
            invalidFrom: 'Invalid from: must be an ISO 8601 date or date-time',
            untilBeforeFrom: 'Invalid until: must be after from',
            untilPast: 'Invalid until: must be in the future',
          }),
          404: AGENT_NOT_FOUND,
        }),
      }),
      get: operation('listAgentAbsences', 'Agents', 'The agent\'s absences in progress or to come', {
        responses: routeResponses(false, { 200: json('Soonest first.', ref('schemas', 'AbsenceList')), 404: AGENT_NOT_FOUND }),
      }),
    }, agentIdParameter),
    [`${PREFIX}/agents/{_id}/absences/{absence}`]: inBusiness({
      delete: operation('endAgentAbsence', 'Agents', 'End an absence now', {
        description: 'One in progress ends now (and is kept, ended); one still to come is removed. Clients waiting in a queue are routed again at once.',
        responses: routeResponses(false, {
          200: json('The absence as ended.', ref('schemas', 'Absence')),
          404: problem(404, 'No such agent, or no such absence left to end.', { agentNotFound: 'Agent not found', absenceNotFound: 'Absence not found', ...NO_ROUTE_EXAMPLE }),
        }),
      }),
    }, agentIdParameter, { name: 'absence', in: 'path', required: true, description: 'The absence\'s `_id`.', schema: { type: 'string' } }),
    [`${PREFIX}/agents/{_id}/clients`]: inBusiness({
      get: operation('listAgentClients', 'Agents', 'The clients an agent holds now', {
        description: 'One page at a time as `GET /messages`.',
        parameters: pageParameters(),
        responses: routeResponses(false, {
          200: json('One page.', ref('schemas', 'HeldClientList')),
          400: badParameters('A query parameter is invalid; the detail names it.', pageExamples),
          404: AGENT_NOT_FOUND,
        }),
      }),
    }, agentIdParameter),
  },
};
