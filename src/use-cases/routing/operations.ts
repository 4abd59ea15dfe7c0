import { badBody, badParameters, BAD_PATH, notFound, operations } from '../input/operation-docs';
import { RouteAssigned, RouteCanceled, RouteQueued, RouteRequest, Rerouted, RerouteRequest, RoutingDecision, RoutingDecisionPage, RoutingPolicy, RoutingPolicyList, RoutingPolicyRequest, RoutingQueue, Team, TeamList, TeamRequest } from './contract';

/* What the document says of the routing routes (src/use-cases/input/operation-docs.ts). */

export const ROUTING_TAG =
  'Lead routing: the service picks the agent. A team lists agents; a routing policy says how to pick among them (round robin, weighted, least loaded), ' +
  'whom to skip (away, absent, outside working hours, at capacity) and what to do when nobody is eligible (queue or reject). A routed client gets an ordinary ' +
  'assignment (`routed_by` in its view); a queued one waits in its policy\'s queue, oldest first, until capacity frees. See docs/routing.md.';

const DECISION_ID = '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const POLICY_EXAMPLE = {
  _id: 'sales',
  version: 2,
  team: 'sales',
  strategy: 'round_robin',
  capacity: 5,
  working_hours: true,
  sticky: false,
  assignment_duration: 'P14D',
  first_response_within: 'PT15M',
  max_reassignments: 2,
  next_response_within: 'PT4H',
  when_none_eligible: 'queue',
  route_unowned_replies: false,
  created_at: '2026-11-25T09:00:00.000Z',
  updated_at: '2026-11-25T10:00:00.000Z',
};
const TEAM_EXAMPLE = {
  _id: 'sales',
  name: 'Sales',
  members: [{ agent: 'a1', weight: 1 }, { agent: 'a2', weight: 3 }],
  created_at: '2026-11-25T09:00:00.000Z',
  updated_at: '2026-11-25T09:00:00.000Z',
};
const DECISION_EXAMPLE = {
  decision_id: DECISION_ID,
  policy: 'sales',
  version: 2,
  client: 'c7',
  status: 'assigned',
  agent: 'a2',
  dt_until: '2026-12-09T10:00:00.000Z',
  queued_at: null,
  decided_at: '2026-11-25T10:00:00.000Z',
  answered_at: null,
  reassignments: 0,
  escalated_at: null,
  candidates: [
    { agent: 'a1', eligible: false, reasons: ['away'], load: 0, capacity: 5 },
    { agent: 'a2', eligible: true, reasons: [], load: 2, capacity: 5 },
    { agent: 'a3', eligible: false, reasons: ['outside_working_hours', 'at_capacity'], load: 5, capacity: 5 },
  ],
};
const UNKNOWN_BUSINESS_NAME = notFound('Unknown business name.');
const DECISION_NOT_FOUND = notFound('No such decision of the caller.', { decisionNotFound: 'Routing decision not found' });
const POLICY_NOT_FOUND = notFound('No such routing policy of the caller in this business.', { policyNotFound: 'Routing policy not found' });
const TEAM_NOT_FOUND = notFound('No such team of the caller.', { teamNotFound: 'Team not found' });

export const ROUTING_OPERATIONS = operations({
  listTeams: { summary: 'The caller\'s teams', responses: { 200: { description: 'Oldest first.', schema: TeamList }, 404: UNKNOWN_BUSINESS_NAME } },
  putTeam: {
    summary: 'Create or replace a team',
    body: { schema: TeamRequest, example: { name: 'Sales', members: [{ agent: 'a1' }, { agent: 'a2', weight: 3 }] } },
    responses: {
      200: { description: 'The team as stored.', schema: Team, example: TEAM_EXAMPLE },
      400: badBody('A field is invalid, or a member is not one of the caller\'s agents.', {
        agentNotAuthorized: 'Agent a9 not found or not authorized',
        duplicate: 'Duplicate agent a1 in members',
        invalidWeight: 'Invalid members.0.weight: Too small: expected number to be >=1',
      }),
      404: UNKNOWN_BUSINESS_NAME,
    },
  },
  getTeam: { summary: 'Read a team', responses: { 200: { description: 'The team.', schema: Team, example: TEAM_EXAMPLE }, 404: TEAM_NOT_FOUND } },
  deleteTeam: {
    summary: 'Delete a team',
    description:
      'Refused (409) while a client waits in the queue of a policy that routes by this team. Otherwise the team goes; a policy naming it has no members until a team of that id is put again (its routes queue, or are rejected under `reject`). Assignments stay.',
    responses: {
      204: { description: 'Deleted.' },
      404: TEAM_NOT_FOUND,
      409: {
        description: 'A client waits in the queue of a policy routing by this team.',
        examples: { waiting: 'Team sales is the team of routing policy sales, which has 1 client waiting in its queue: take it out first (DELETE /clients/{_id}/route?policy=sales)' },
      },
    },
  },
  listRoutingPolicies: { summary: 'The caller\'s routing policies', responses: { 200: { description: 'Oldest first.', schema: RoutingPolicyList }, 404: UNKNOWN_BUSINESS_NAME } },
  putRoutingPolicy: {
    summary: 'Create or change a routing policy (each change is a new version)',
    body: { schema: RoutingPolicyRequest, example: { team: 'sales', strategy: 'round_robin', capacity: 5, working_hours: true, assignment_duration: 'P14D', when_none_eligible: 'queue' } },
    responses: {
      200: { description: 'The policy in force, with its version.', schema: RoutingPolicy, example: POLICY_EXAMPLE },
      400: badBody('A field is invalid, or the team is not one of the caller\'s.', {
        teamNotAuthorized: 'Team sales not found or not authorized',
        invalidStrategy: 'Invalid strategy: Invalid option: expected one of "round_robin"|"weighted"|"least_loaded"',
        invalidDuration: 'Invalid assignment_duration: must be an ISO 8601 duration such as P14D or PT8H, longer than zero and at most 10 years',
        invalidFirstResponse: 'Invalid first_response_within: must be an ISO 8601 duration such as P14D or PT8H, at least 10 seconds and at most 10 years',
        secondUnownedReplies: 'Invalid route_unowned_replies: policy sales already routes unowned replies',
      }),
      404: UNKNOWN_BUSINESS_NAME,
    },
  },
  getRoutingPolicy: { summary: 'Read a routing policy', responses: { 200: { description: 'The policy in force.', schema: RoutingPolicy, example: POLICY_EXAMPLE }, 404: POLICY_NOT_FOUND } },
  deleteRoutingPolicy: {
    summary: 'Delete a routing policy',
    description:
      'Refused (409) while clients wait in its queue: take them out first. Otherwise the policy goes with its decisions; the assignments it made stay (their `routed_by` names it still), and their first-response clocks stop.',
    responses: {
      204: { description: 'Deleted.' },
      404: POLICY_NOT_FOUND,
      409: { description: 'Clients wait in its queue.', examples: { waiting: 'Routing policy sales has 2 clients waiting in its queue: take them out first (DELETE /clients/{_id}/route?policy=sales)' } },
    },
  },
  getRoutingQueue: {
    summary: 'The clients waiting in a policy\'s queue, oldest first',
    responses: {
      200: { description: 'The queue.', schema: RoutingQueue, example: { queue: [{ client: 'c7', position: 1, since: '2026-11-25T10:00:00.000Z', decision_id: DECISION_ID }] } },
      404: POLICY_NOT_FOUND,
    },
  },
  routeClient: {
    summary: 'Route a client: the policy picks the agent',
    description:
      'Takes `Idempotency-Key` as `POST /messages` does: the same key and body answer the first decision as it stands, another body is a 422. A client already holding ' +
      'an active assignment made by this policy gets that decision again (200), one already waiting its place (202): never a second owner. A client held by an eligible ' +
      'member of the team (by hand, or by another policy) is answered `already_assigned` with that holder: routing never changes an existing assignment. While anyone waits in ' +
      'the policy\'s queue a new client queues behind them.',
    body: { schema: RouteRequest, example: { policy: 'sales', notes: 'inbound lead' } },
    responses: {
      200: {
        description:
          'Assigned: the assignment exists (with `routed_by`) and its expiry workflow is started; `other_holders` names the agents holding the client beside it. Or already assigned: an eligible member of the team held the client already, and keeps it as it was.',
        schema: RouteAssigned,
        examples: {
          assigned: { value: { decision_id: DECISION_ID, status: 'assigned', agent: 'a2', dt_until: '2026-12-09T10:00:00.000Z' } },
          besideOthers: { value: { decision_id: DECISION_ID, status: 'assigned', agent: 'a2', dt_until: '2026-12-09T10:00:00.000Z', other_holders: [{ agent: 'a9', dt_until: '2030-01-01T00:00:00.000Z' }] } },
          alreadyAssigned: { value: { decision_id: DECISION_ID, status: 'already_assigned', agent: 'a1', dt_until: '2030-01-01T00:00:00.000Z' } },
        },
      },
      202: { description: 'Queued: nobody is eligible now; the client waits in the policy\'s queue.', schema: RouteQueued, example: { decision_id: DECISION_ID, status: 'queued', position: 1 } },
      400: badBody('A field or the Idempotency-Key is invalid.', {
        invalidPolicy: 'Invalid policy: Invalid input: expected string, received undefined',
        invalidKey: 'Invalid Idempotency-Key: must be 1-255 printable ASCII characters',
      }),
      404: notFound('No such client or routing policy of the caller.', { clientNotFound: 'Client not found', policyNotFound: 'Routing policy not found' }),
      409: {
        description: 'Nobody is eligible and the policy says `reject` (the decision is stored); or the decision the Idempotency-Key names was canceled.',
        examples: { noAgent: 'No agent is available', canceled: `Routing decision ${DECISION_ID} was canceled: the client was taken out of the queue` },
      },
      422: { description: 'The Idempotency-Key was used with another request.', examples: { reused: { type: '/problems/idempotency-key-reused', detail: 'Idempotency-Key was already used with a different request' } } },
    },
  },
  cancelRoute: {
    summary: 'Take a client out of the routing queue (of `policy`, or of every policy of the caller)',
    responses: {
      200: { description: 'Taken out.', schema: RouteCanceled, example: { client: 'c7', canceled: [DECISION_ID] } },
      404: notFound('No such client or policy, or the client is not waiting.', { clientNotFound: 'Client not found', policyNotFound: 'Routing policy not found', notWaiting: 'Client is not waiting in a routing queue' }),
    },
  },
  listRoutingDecisions: {
    summary: 'The caller\'s routing decisions, newest first, by client, agent, policy or status',
    responses: {
      200: { description: 'A page of decisions.', schema: RoutingDecisionPage, example: { decisions: [DECISION_EXAMPLE], next_cursor: null } },
      400: badParameters('A query parameter is invalid.', {
        invalidStatus: 'Invalid status: Invalid option: expected one of "assigned"|"queued"|"rejected"|"canceled"|"already_assigned"',
        invalidLimit: 'Invalid limit: Too big: expected number to be <=100',
        invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
      }),
    },
  },
  getRoutingDecision: {
    summary: 'Why this agent: the decision with every candidate and the reasons',
    responses: { 200: { description: 'The decision.', schema: RoutingDecision, example: DECISION_EXAMPLE }, 404: DECISION_NOT_FOUND },
  },
  rerouteAgent: {
    summary: 'Route again every client the agent holds (a rep who leaves)',
    description:
      'Each client the agent holds now is routed again, never to this agent: by `policy`, else by the policy that routed it (a client assigned by hand stays when no ' +
      '`policy` is named). The agent\'s assignment ends (`ended_by` user/api) when the client gets a new owner or waits in the queue; it stays when a `reject` policy finds nobody.',
    body: { schema: RerouteRequest, required: false, example: { policy: 'sales' } },
    responses: {
      200: {
        description: 'One item per client the agent held, oldest assignment first.',
        schema: Rerouted,
        example: { agent: 'a1', decisions: [{ client: 'c7', status: 'assigned', decision_id: DECISION_ID, agent: 'a2', position: null }] },
      },
      400: badBody('A field is invalid.', {}),
      404: notFound('No such agent or policy of the caller.', { agentNotFound: 'Agent not found', policyNotFound: 'Routing policy not found' }),
    },
  },
  acceptRoutingDecision: {
    summary: 'The owner takes the routed client: its first-response clock stops',
    description: 'Counts as the owner\'s first response. Accepting again answers the same. No body.',
    responses: {
      200: { description: 'The decision, with `answered_at`.', schema: RoutingDecision, example: { ...DECISION_EXAMPLE, answered_at: '2026-11-25T10:03:00.000Z' } },
      400: BAD_PATH,
      404: DECISION_NOT_FOUND,
      409: { description: 'The decision assigns nobody (queued, rejected or canceled).', examples: { notAssigned: `Routing decision ${DECISION_ID} is queued: there is no owner to accept it` } },
    },
  },
});
