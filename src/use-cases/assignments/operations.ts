import { badBody, badParameters, notFound, operations } from '../input/operation-docs';
import { AssignAgentsRequest, AssignAgentsResult, AssignmentList, Unassignment } from './contract';

/* What the document says of the assignments' routes (src/use-cases/input/operation-docs.ts). */

export const ASSIGNMENTS_TAG =
  'Agents assigned to a client until a date. Each assignment expires by itself at its `dt_until` (a durable Temporal timer), ' +
  'and there is never more than one active assignment per client and agent.';

const WORKFLOW_ID = 'client/acme/c1/5b0c0a8e-2f1d-4c55-9a0e-6c3f2d1b7e44';
const CLIENT_NOT_FOUND = notFound('No such client of the caller in this business.', { clientNotFound: 'Client not found' });

export const ASSIGNMENT_OPERATIONS = operations({
  assignAgents: {
    summary: 'Assign agents to a client',
    description:
      'Checks, in this order: the token (401); `agents` (400 `Missing or invalid agents array`); each element\'s agent id ' +
      '(400 `Invalid agent data: missing agent ID`); each `dt_until`; the number of agents, duplicates and `ds_notes`; ' +
      'the client (404); then each agent in request order (400 `Agent {id} not found or not authorized`); last, a field the body does not have ' +
      '(400 `Unknown field: agents[0].role`). ' +
      'An agent of another user or business is answered exactly like a missing one.',
    body: { schema: AssignAgentsRequest, example: { agents: [{ agent: 'a1', dt_until: '2030-01-01' }, { agent: 'a2' }], ds_notes: 'new lead' } },
    responses: {
      200: {
        description: 'Every agent is assigned.',
        schema: AssignAgentsResult,
        example: {
          client: 'c1',
          ds_notes: 'new lead',
          assignments: [
            { agent: 'a1', dt_until: '2030-01-01T00:00:00.000Z', status: 'active', workflow_id: WORKFLOW_ID },
            { agent: 'a2', dt_until: '2143-06-23T00:00:00.000Z', status: 'active', workflow_id: WORKFLOW_ID },
          ],
        },
      },
      400: badBody('The request is invalid, or an agent is not the caller\'s; nothing was assigned.', {
        missingAgents: 'Missing or invalid agents array',
        missingAgentId: 'Invalid agent data: missing agent ID',
        agentNotAuthorized: 'Agent a9 not found or not authorized',
        invalidDate: 'Invalid dt_until for agent a1: must be an ISO 8601 date or date-time',
        pastDate: 'Invalid dt_until for agent a1: must be in the future',
        tooMany: 'Too many agents: at most 100 per request',
        duplicate: 'Duplicate agent a1 in agents array',
        invalidNotes: 'Invalid ds_notes: must be a string of at most 2000 characters',
        unknownElementField: 'Unknown field: agents[0].role',
      }),
      404: CLIENT_NOT_FOUND,
      503: {
        description:
          'PostgreSQL or Temporal cannot be reached, this caller already has its share of assignments in flight, or the worker is behind: ' +
          'a request its client\'s run has not answered within 10 seconds, while a worker answered others within the last minute, is withdrawn. ' +
          'Nothing was assigned (a withdrawn request is never recorded, even when the worker gets to it later). Try again after `Retry-After` seconds.',
        examples: {
          behind: 'The assignment service is behind; nothing was assigned: try again in 5 s',
          busy: 'The service is busy; try again in 2 s',
          unavailable: 'A backing service is unavailable; try again shortly',
        },
        headers: ['Retry-After'],
      },
      504: {
        description:
          'The assignment did not finish within 20 seconds while no worker is known to run (none answered in the last minute). It was not refused: it completes on its own. ' +
          'After `Retry-After` seconds, `GET …/clients/{_id}/agents` shows the outcome, and the Temporal UI shows the run by the workflow id the detail names.',
        examples: {
          timeout:
            'Assignment workflow assign-agents/acme/c1/0b7c6d0e-3f9b-4a51-9a57-7d3c1c1f4a11 did not finish in time; it completes on its own: GET /ext/v2/acme/clients/c1/agents shows the outcome',
        },
        headers: ['Retry-After'],
      },
    },
  },
  listClientAgents: {
    summary: 'List a client\'s assignments',
    responses: {
      200: { description: 'The client\'s assignments.', schema: AssignmentList },
      400: badParameters('`status` is neither `active` nor `all`.', { invalidStatus: 'Invalid status: use active or all' }),
      404: CLIENT_NOT_FOUND,
    },
  },
  unassignAgent: {
    summary: 'Unassign an agent now',
    description: 'The active assignment becomes `unassigned` and its expiry timer is cancelled.',
    responses: {
      200: {
        description: 'The assignment is unassigned.',
        schema: Unassignment,
        example: {
          client: 'c1',
          agent: 'a1',
          dt_until: '2030-01-01T00:00:00.000Z',
          status: 'unassigned',
          ended_at: '2026-11-22T05:14:13.462Z',
          ended_by: { actor: 'user', reason: 'api' },
          workflow_id: WORKFLOW_ID,
        },
      },
      404: notFound('No such client, or the agent is not actively assigned to it.', { clientNotFound: 'Client not found', notAssigned: 'Agent a1 is not assigned to this client' }),
    },
  },
});
