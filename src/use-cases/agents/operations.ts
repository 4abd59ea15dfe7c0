import { PAGE_REFUSALS } from '../clients/operations';
import { badBody, badParameters, notFound, operations } from '../input/operation-docs';
import { Absence, AbsenceList, Agent, AgentList, AgentPatch, HeldClientList, NewAbsence, NewAgent } from './contract';

/* What the document says of the agents' routes (src/use-cases/input/operation-docs.ts). */

export const AGENTS_TAG = 'The people assigned to clients. Each belongs to one user in one business.';

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
const AGENT_NOT_FOUND = notFound('No such agent of the caller in this business (or the business name is not one the service accepts).', { agentNotFound: 'Agent not found' });

export const AGENT_OPERATIONS = operations({
  createAgent: {
    summary: 'Create an agent',
    body: { schema: NewAgent, required: false, example: { _id: 'a1', name: 'Grace Hopper' } },
    responses: {
      201: { description: 'Created.', schema: Agent, headers: ['Location'], example: { ...AGENT_EXAMPLE, working_hours: null, timezone: null, load: 0 } },
      400: badBody('A field is invalid; the detail names it.', {
        invalidId: 'Invalid _id: must be 1-128 characters of A-Z a-z 0-9 . _ : @ -',
        invalidName: 'Invalid name: Invalid input: expected string, received number',
        notAnObject: 'Invalid request body: Invalid input: expected object, received null',
      }),
      409: { description: 'The caller already has an agent with this `_id` in this business.', examples: { duplicate: 'Agent a1 already exists' } },
    },
  },
  listAgents: { summary: 'List the caller\'s agents', responses: { 200: { description: 'The caller\'s agents in this business.', schema: AgentList } } },
  getAgent: { summary: 'Read an agent, with its availability and load', responses: { 200: { description: 'The agent.', schema: Agent, example: AGENT_EXAMPLE }, 404: AGENT_NOT_FOUND } },
  updateAgent: {
    summary: 'Change an agent\'s name, time zone, working hours, presence or capacity (JSON merge patch)',
    description: 'A presence back to `available`, a new capacity or new hours may free room: the caller\'s waiting clients are routed again at once.',
    body: {
      schema: AgentPatch,
      media: {
        'application/merge-patch+json': { example: { presence: 'away' } },
        'application/json': { example: { timezone: 'Europe/Paris', working_hours: { mon: [['09:00', '17:00']] }, capacity: 2 } },
      },
    },
    responses: {
      200: { description: 'The agent as changed.', schema: Agent, example: AGENT_EXAMPLE },
      400: badBody('A field is invalid; the detail names it. Nothing is changed.', {
        invalidZone: 'Invalid timezone: must be an IANA time zone such as America/New_York',
        invalidPresence: 'Invalid presence: Invalid option: expected one of "available"|"away"',
        invalidInterval: 'Invalid working_hours.mon.0: must end after it starts (split a night shift at midnight)',
        hoursWithoutZone: "Invalid working_hours: needs the agent's timezone (an IANA name such as Europe/Paris)",
        notAnObject: 'Invalid request body: must be a JSON object (a merge patch)',
      }),
      404: AGENT_NOT_FOUND,
    },
  },
  deleteAgent: {
    summary: 'Delete an agent',
    description:
      'Its active assignments end (`ended_by` `{ "actor": "user", "reason": "agent_deleted" }`, an `assignment.unassigned` each). It leaves the caller\'s ' +
      'rotations, which go on with the other agents from the same `starts_at`; when it held the period in progress, the rest of that period goes at once ' +
      'to the agent the shortened list names. A rotation left with no agent stops (`rotation.stopped`, reason `agent_deleted`). The id is then free ' +
      'for a new agent. Asking again is a 404.',
    responses: { 204: { description: 'Deleted.' }, 404: AGENT_NOT_FOUND },
  },
  addAgentAbsence: {
    summary: 'Record a time the agent is away: routing does not pick it then',
    body: { schema: NewAbsence, example: { from: '2026-12-21', until: '2027-01-04', note: 'holidays' } },
    responses: {
      201: { description: 'Recorded.', schema: Absence, example: { _id: '9b2f4d1e-8a7c-4e3b-9f10-2a6b5c4d3e21', from: '2026-12-21T00:00:00.000Z', until: '2027-01-04T00:00:00.000Z', note: 'holidays' } },
      400: badBody('A field is invalid; the detail names it.', {
        invalidFrom: 'Invalid from: must be an ISO 8601 date or date-time',
        untilBeforeFrom: 'Invalid until: must be after from',
        untilPast: 'Invalid until: must be in the future',
      }),
      404: AGENT_NOT_FOUND,
    },
  },
  listAgentAbsences: { summary: 'The agent\'s absences in progress or to come', responses: { 200: { description: 'Soonest first.', schema: AbsenceList }, 404: AGENT_NOT_FOUND } },
  endAgentAbsence: {
    summary: 'End an absence now',
    description: 'One in progress ends now (and is kept, ended); one still to come is removed. Clients waiting in a queue are routed again at once.',
    responses: {
      200: { description: 'The absence as ended.', schema: Absence },
      404: notFound('No such agent, or no such absence left to end.', { agentNotFound: 'Agent not found', absenceNotFound: 'Absence not found' }),
    },
  },
  listAgentClients: {
    summary: 'The clients an agent holds now',
    description: 'One page at a time as `GET /messages`.',
    responses: { 200: { description: 'One page.', schema: HeldClientList }, 400: badParameters('A query parameter is invalid; the detail names it.', PAGE_REFUSALS), 404: AGENT_NOT_FOUND },
  },
});
