import { INELIGIBLE_REASONS, ROUTING_STRATEGIES } from '../../../domain';
import type { ApiPart } from '../components';
import { DECISION_STATUSES } from '../../../domain';
import { BAD_PATH, badBody, badParameters, closedObject, idParameter, inBusiness, json, NO_ROUTE_EXAMPLE, operation, pageParameters, pageSchema, pathParameter, PREFIX, problem, queryParameter, ref, routeResponses } from '../components';
import { clientIdParameter } from './clients';

const ownedIdParameter = (what: string, example: string) => idParameter(`The ${what}'s id. Another user's or business's is the same 404 as a missing one.`, example);
const decisionIdParameter = pathParameter('id', 'The decision\'s id (`decision_id`).', { type: 'string' });
const uuid = { type: 'string', format: 'uuid' };
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
const UNKNOWN_BUSINESS_NAME = problem(404, 'Unknown business name.', NO_ROUTE_EXAMPLE);
const DECISION_NOT_FOUND = problem(404, 'No such decision of the caller.', { decisionNotFound: 'Routing decision not found', ...NO_ROUTE_EXAMPLE });
const REROUTED_CLIENT = closedObject(['client', 'status', 'decision_id', 'agent', 'position'], {
  client: ref('schemas', 'ResourceId'),
  status: {
    enum: ['assigned', 'queued', 'rejected', 'kept', 'already_assigned'],
    description: '`kept` (and `rejected`): the agent keeps the client. `already_assigned`: another eligible member held it already and keeps it; the agent\'s assignment ends.',
  },
  decision_id: { oneOf: [uuid, { type: 'null' }] },
  agent: { oneOf: [ref('schemas', 'ResourceId'), { type: 'null' }], description: 'Who holds the client now; null while it waits.' },
  position: { type: ['integer', 'null'], minimum: 1 },
});
const POLICY_NOT_FOUND = problem(404, 'No such routing policy of the caller in this business.', { policyNotFound: 'Routing policy not found', ...NO_ROUTE_EXAMPLE });

export const routingApi: ApiPart = {
  tags: [
    {
      name: 'Routing',
      description:
        'Lead routing: the service picks the agent. A team lists agents; a routing policy says how to pick among them (round robin, weighted, least loaded), ' +
        'whom to skip (away, absent, outside working hours, at capacity) and what to do when nobody is eligible (queue or reject). A routed client gets an ordinary ' +
        'assignment (`routed_by` in its view); a queued one waits in its policy\'s queue, oldest first, until capacity frees. See docs/routing.md.',
    },
  ],
  schemas: {
    TeamRequest: {
      type: 'object',
      required: ['members'],
      description: 'A field not described here is a 400 `Unknown field: {name}`. Each member must be one of the caller\'s agents.',
      properties: {
        name: { type: ['string', 'null'], maxLength: 200 },
        members: {
          type: 'array',
          maxItems: 100,
          description: 'In order: the order round robin follows.',
          items: { type: 'object', required: ['agent'], properties: { agent: ref('schemas', 'ResourceId'), weight: { type: 'integer', minimum: 1, maximum: 1000, description: 'For `weighted`; default 1.' } } },
        },
      },
    },
    Team: closedObject(['_id', 'name', 'members', 'created_at', 'updated_at'], {
      _id: ref('schemas', 'ResourceId'),
      name: { type: ['string', 'null'] },
      members: {
        type: 'array',
        items: { type: 'object', required: ['agent', 'weight'], additionalProperties: false, properties: { agent: ref('schemas', 'ResourceId'), weight: { type: 'integer', minimum: 1 } } },
      },
      created_at: ref('schemas', 'DateTime'),
      updated_at: ref('schemas', 'DateTime'),
    }),
    TeamList: closedObject(['teams'], { teams: { type: 'array', items: ref('schemas', 'Team') } }),
    RoutingPolicyRequest: {
      type: 'object',
      required: ['team'],
      description: 'A field not described here is a 400 `Unknown field: {name}`.',
      properties: {
        team: ref('schemas', 'ResourceId'),
        strategy: { enum: [...ROUTING_STRATEGIES], default: 'round_robin' },
        capacity: { type: ['integer', 'null'], minimum: 0, maximum: 10000, description: 'Per agent, unless the agent has its own; absent or null: no limit but the agent\'s.' },
        working_hours: { type: 'boolean', default: true, description: 'Skip agents outside their working hours.' },
        sticky: { type: 'boolean', default: false, description: 'A client routed again goes back to its last owner under this policy when eligible.' },
        assignment_duration: { type: ['string', 'null'], description: 'ISO 8601 duration: a routed assignment\'s `dt_until` is this far ahead; absent: the default 2143-06-23.', examples: ['P14D'] },
        first_response_within: {
          type: ['string', 'null'],
          description:
            'ISO 8601 duration, at least 10 seconds: the owner must answer a routed client within it (a message naming the agent, or accept), else the client goes to another ' +
            'eligible member. With `working_hours` the clock runs only inside the owner\'s hours. Absent or null: no clock.',
          examples: ['PT15M'],
        },
        max_reassignments: { type: ['integer', 'null'], minimum: 0, maximum: 100, description: 'How many times a missed first response moves the client (default 0: escalate at once). Needs `first_response_within`.' },
        next_response_within: {
          type: ['string', 'null'],
          description:
            'ISO 8601 duration, at least 10 seconds: a conversation of a client routed by this policy (its latest decision) that waits this long for an answer is reported once per waiting ' +
            'period (`conversation.overdue`, naming its holders). With `working_hours` the clock runs only inside its first holder\'s hours; a snoozed or closed conversation is not overdue. Absent or null: no clock.',
          examples: ['PT4H'],
        },
        when_none_eligible: { enum: ['queue', 'reject'], default: 'queue' },
        route_unowned_replies: {
          type: 'boolean',
          default: false,
          description: 'A text from a client of the caller that holds no active assignment routes the client by this policy (at most one policy of a user says true: 400 otherwise).',
        },
      },
    },
    RoutingPolicy: closedObject(['_id', 'version', 'team', 'strategy', 'capacity', 'working_hours', 'sticky', 'assignment_duration', 'first_response_within', 'max_reassignments', 'next_response_within', 'when_none_eligible', 'route_unowned_replies', 'created_at', 'updated_at'], {
      _id: ref('schemas', 'ResourceId'),
      version: { type: 'integer', minimum: 1, description: 'Raised by each PUT that changes a setting; every decision names the version it used.' },
      team: ref('schemas', 'ResourceId'),
      strategy: { enum: [...ROUTING_STRATEGIES] },
      capacity: { type: ['integer', 'null'] },
      working_hours: { type: 'boolean' },
      sticky: { type: 'boolean' },
      assignment_duration: { type: ['string', 'null'] },
      first_response_within: { type: ['string', 'null'] },
      max_reassignments: { type: ['integer', 'null'] },
      next_response_within: { type: ['string', 'null'] },
      when_none_eligible: { enum: ['queue', 'reject'] },
      route_unowned_replies: { type: 'boolean' },
      created_at: ref('schemas', 'DateTime'),
      updated_at: ref('schemas', 'DateTime'),
    }),
    RoutingPolicyList: closedObject(['routing_policies'], { routing_policies: { type: 'array', items: ref('schemas', 'RoutingPolicy') } }),
    RouteRequest: {
      type: 'object',
      required: ['policy'],
      properties: { policy: ref('schemas', 'ResourceId'), notes: { type: ['string', 'null'], maxLength: 2000, description: 'The routed assignment\'s `ds_notes`.' } },
    },
    RouteAssigned: closedObject(['decision_id', 'status', 'agent', 'dt_until'], {
      decision_id: uuid,
      status: { enum: ['assigned', 'already_assigned'], description: '`already_assigned`: an eligible member of the team held the client already; that assignment is the answer, unchanged (its own `dt_until`).' },
      agent: ref('schemas', 'ResourceId'),
      dt_until: ref('schemas', 'DateTime'),
      other_holders: {
        type: 'array',
        minItems: 1,
        description: 'Present only when other agents hold the client too (by hand, or by another policy): the owner was added beside them. Their assignments are unchanged.',
        items: closedObject(['agent', 'dt_until'], { agent: ref('schemas', 'ResourceId'), dt_until: ref('schemas', 'DateTime') }),
      },
    }),
    RouteQueued: closedObject(['decision_id', 'status', 'position'], { decision_id: uuid, status: { const: 'queued' }, position: { type: 'integer', minimum: 1, description: '1: the next to be assigned.' } }),
    RoutingCandidate: closedObject(['agent', 'eligible', 'reasons', 'load', 'capacity'], {
      agent: ref('schemas', 'ResourceId'),
      eligible: { type: 'boolean' },
      reasons: { type: 'array', items: { enum: [...INELIGIBLE_REASONS] }, description: 'Why not eligible; empty when eligible.' },
      load: { type: 'integer', minimum: 0, description: 'Its active assignments at the decision.' },
      capacity: { type: ['integer', 'null'], description: 'The capacity that applied (the agent\'s, else the policy\'s); null: none.' },
    }),
    RoutingDecision: closedObject(['decision_id', 'policy', 'version', 'client', 'status', 'agent', 'dt_until', 'queued_at', 'decided_at', 'answered_at', 'reassignments', 'escalated_at', 'candidates'], {
      decision_id: uuid,
      policy: ref('schemas', 'ResourceId'),
      version: { type: 'integer', minimum: 1 },
      client: ref('schemas', 'ResourceId'),
      status: { enum: [...DECISION_STATUSES], description: '`already_assigned`: the client was held by an eligible member already (`agent`, with that assignment\'s `dt_until`); nothing was assigned.' },
      agent: { oneOf: [ref('schemas', 'ResourceId'), { type: 'null' }] },
      dt_until: { type: ['string', 'null'], format: 'date-time' },
      queued_at: { type: ['string', 'null'], format: 'date-time', description: 'When it joined the queue; null if it never waited.' },
      decided_at: { ...ref('schemas', 'DateTime'), description: 'When it reached its status (for a reassigned one: when its current owner got the client, the start of its first-response clock).' },
      answered_at: { type: ['string', 'null'], format: 'date-time', description: 'When the current owner answered (a message naming it, or accept); null while unanswered.' },
      reassignments: { type: 'integer', minimum: 0, description: 'How many times a missed first response moved the client.' },
      escalated_at: { type: ['string', 'null'], format: 'date-time', description: 'When a missed first response found no reassignment left or nobody else eligible: the owner kept the client.' },
      candidates: { type: 'array', items: ref('schemas', 'RoutingCandidate'), description: 'Every team member in member order, as assessed when it was last decided (for a queued one: its last look).' },
    }),
    RoutingQueue: closedObject(['queue'], {
      queue: {
        type: 'array',
        description: 'Oldest first.',
        items: closedObject(['client', 'position', 'since', 'decision_id'], {
          client: ref('schemas', 'ResourceId'),
          position: { type: 'integer', minimum: 1 },
          since: ref('schemas', 'DateTime'),
          decision_id: uuid,
        }),
      },
    }),
    RoutingDecisionPage: pageSchema('decisions', ref('schemas', 'RoutingDecision'), 'Newest first.'),
    RouteCanceled: closedObject(['client', 'canceled'], { client: ref('schemas', 'ResourceId'), canceled: { type: 'array', items: uuid, description: 'The waiting decisions taken out.' } }),
  },
  paths: {
    [`${PREFIX}/teams`]: inBusiness({
      get: operation('listTeams', 'Routing', 'The caller\'s teams', { responses: routeResponses(false, { 200: json('Oldest first.', ref('schemas', 'TeamList')), 404: UNKNOWN_BUSINESS_NAME }) }),
    }),
    [`${PREFIX}/teams/{_id}`]: inBusiness(
      {
        put: operation('putTeam', 'Routing', 'Create or replace a team', {
          requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'TeamRequest'), example: { name: 'Sales', members: [{ agent: 'a1' }, { agent: 'a2', weight: 3 }] } } } },
          responses: routeResponses(true, {
            200: json('The team as stored.', ref('schemas', 'Team'), { example: TEAM_EXAMPLE }),
            400: badBody('A field is invalid, or a member is not one of the caller\'s agents.', {
              agentNotAuthorized: 'Agent a9 not found or not authorized',
              duplicate: 'Duplicate agent a1 in members',
              invalidWeight: 'Invalid members.0.weight: Too small: expected number to be >=1',
            }),
            404: UNKNOWN_BUSINESS_NAME,
          }),
        }),
        get: operation('getTeam', 'Routing', 'Read a team', {
          responses: routeResponses(false, {
            200: json('The team.', ref('schemas', 'Team'), { example: TEAM_EXAMPLE }),
            404: problem(404, 'No such team of the caller.', { teamNotFound: 'Team not found', ...NO_ROUTE_EXAMPLE }),
          }),
        }),
        delete: operation('deleteTeam', 'Routing', 'Delete a team', {
          description:
            'Refused (409) while a client waits in the queue of a policy that routes by this team. Otherwise the team goes; a policy naming it has no members until a team of that id is put again (its routes queue, or are rejected under `reject`). Assignments stay.',
          responses: routeResponses(false, {
            204: { description: 'Deleted.' },
            404: problem(404, 'No such team of the caller.', { teamNotFound: 'Team not found', ...NO_ROUTE_EXAMPLE }),
            409: problem(409, 'A client waits in the queue of a policy routing by this team.', {
              waiting: 'Team sales is the team of routing policy sales, which has 1 client waiting in its queue: take it out first (DELETE /clients/{_id}/route?policy=sales)',
            }),
          }),
        }),
      },
      ownedIdParameter('team', 'sales'),
    ),
    [`${PREFIX}/routing-policies`]: inBusiness({
      get: operation('listRoutingPolicies', 'Routing', 'The caller\'s routing policies', {
        responses: routeResponses(false, { 200: json('Oldest first.', ref('schemas', 'RoutingPolicyList')), 404: UNKNOWN_BUSINESS_NAME }),
      }),
    }),
    [`${PREFIX}/routing-policies/{_id}`]: inBusiness(
      {
        put: operation('putRoutingPolicy', 'Routing', 'Create or change a routing policy (each change is a new version)', {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', 'RoutingPolicyRequest'), example: { team: 'sales', strategy: 'round_robin', capacity: 5, working_hours: true, assignment_duration: 'P14D', when_none_eligible: 'queue' } } },
          },
          responses: routeResponses(true, {
            200: json('The policy in force, with its version.', ref('schemas', 'RoutingPolicy'), { example: POLICY_EXAMPLE }),
            400: badBody('A field is invalid, or the team is not one of the caller\'s.', {
              teamNotAuthorized: 'Team sales not found or not authorized',
              invalidStrategy: 'Invalid strategy: Invalid option: expected one of "round_robin"|"weighted"|"least_loaded"',
              invalidDuration: 'Invalid assignment_duration: must be an ISO 8601 duration such as P14D or PT8H, longer than zero and at most 10 years',
              invalidFirstResponse: 'Invalid first_response_within: must be an ISO 8601 duration such as P14D or PT8H, at least 10 seconds and at most 10 years',
              secondUnownedReplies: 'Invalid route_unowned_replies: policy sales already routes unowned replies',
            }),
            404: UNKNOWN_BUSINESS_NAME,
          }),
        }),
        get: operation('getRoutingPolicy', 'Routing', 'Read a routing policy', {
          responses: routeResponses(false, { 200: json('The policy in force.', ref('schemas', 'RoutingPolicy'), { example: POLICY_EXAMPLE }), 404: POLICY_NOT_FOUND }),
        }),
        delete: operation('deleteRoutingPolicy', 'Routing', 'Delete a routing policy', {
          description:
            'Refused (409) while clients wait in its queue: take them out first. Otherwise the policy goes with its decisions; the assignments it made stay (their `routed_by` names it still), and their first-response clocks stop.',
          responses: routeResponses(false, {
            204: { description: 'Deleted.' },
            404: POLICY_NOT_FOUND,
            409: problem(409, 'Clients wait in its queue.', { waiting: 'Routing policy sales has 2 clients waiting in its queue: take them out first (DELETE /clients/{_id}/route?policy=sales)' }),
          }),
        }),
      },
      ownedIdParameter('routing policy', 'sales'),
    ),
    [`${PREFIX}/routing-policies/{_id}/queue`]: inBusiness(
      {
        get: operation('getRoutingQueue', 'Routing', 'The clients waiting in a policy\'s queue, oldest first', {
          responses: routeResponses(false, {
            200: json('The queue.', ref('schemas', 'RoutingQueue'), { example: { queue: [{ client: 'c7', position: 1, since: '2026-11-25T10:00:00.000Z', decision_id: DECISION_ID }] } }),
            404: POLICY_NOT_FOUND,
          }),
        }),
      },
      ownedIdParameter('routing policy', 'sales'),
    ),
    [`${PREFIX}/clients/{_id}/route`]: inBusiness(
      {
        post: operation('routeClient', 'Routing', 'Route a client: the policy picks the agent', {
          description:
            'Takes `Idempotency-Key` as `POST /messages` does: the same key and body answer the first decision as it stands, another body is a 422. A client already holding ' +
            'an active assignment made by this policy gets that decision again (200), one already waiting its place (202): never a second owner. A client held by an eligible ' +
            'member of the team (by hand, or by another policy) is answered `already_assigned` with that holder: routing never changes an existing assignment. While anyone waits in ' +
            'the policy\'s queue a new client queues behind them.',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, description: '1-255 printable ASCII characters.', schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'RouteRequest'), example: { policy: 'sales', notes: 'inbound lead' } } } },
          responses: routeResponses(true, {
            200: {
              description:
                'Assigned: the assignment exists (with `routed_by`) and its expiry workflow is started; `other_holders` names the agents holding the client beside it. Or already assigned: an eligible member of the team held the client already, and keeps it as it was.',
              content: {
                'application/json': {
                  schema: ref('schemas', 'RouteAssigned'),
                  examples: {
                    assigned: { value: { decision_id: DECISION_ID, status: 'assigned', agent: 'a2', dt_until: '2026-12-09T10:00:00.000Z' } },
                    besideOthers: { value: { decision_id: DECISION_ID, status: 'assigned', agent: 'a2', dt_until: '2026-12-09T10:00:00.000Z', other_holders: [{ agent: 'a9', dt_until: '2030-01-01T00:00:00.000Z' }] } },
                    alreadyAssigned: { value: { decision_id: DECISION_ID, status: 'already_assigned', agent: 'a1', dt_until: '2030-01-01T00:00:00.000Z' } },
                  },
                },
              },
            },
            202: json('Queued: nobody is eligible now; the client waits in the policy\'s queue.', ref('schemas', 'RouteQueued'), { example: { decision_id: DECISION_ID, status: 'queued', position: 1 } }),
            400: badBody('A field or the Idempotency-Key is invalid.', {
              invalidPolicy: 'Invalid policy: Invalid input: expected string, received undefined',
              invalidKey: 'Invalid Idempotency-Key: must be 1-255 printable ASCII characters',
            }),
            404: problem(404, 'No such client or routing policy of the caller.', { clientNotFound: 'Client not found', policyNotFound: 'Routing policy not found', ...NO_ROUTE_EXAMPLE }),
            409: problem(409, 'Nobody is eligible and the policy says `reject` (the decision is stored); or the decision the Idempotency-Key names was canceled.', {
              noAgent: 'No agent is available',
              canceled: `Routing decision ${DECISION_ID} was canceled: the client was taken out of the queue`,
            }),
            422: problem(422, 'The Idempotency-Key was used with another request.', { reused: { type: '/problems/idempotency-key-reused', detail: 'Idempotency-Key was already used with a different request' } }),
          }),
        }),
        delete: operation('cancelRoute', 'Routing', 'Take a client out of the routing queue (of `policy`, or of every policy of the caller)', {
          parameters: [{ name: 'policy', in: 'query', required: false, schema: { type: 'string' } }],
          responses: routeResponses(false, {
            200: json('Taken out.', ref('schemas', 'RouteCanceled'), { example: { client: 'c7', canceled: [DECISION_ID] } }),
            404: problem(404, 'No such client or policy, or the client is not waiting.', {
              clientNotFound: 'Client not found',
              policyNotFound: 'Routing policy not found',
              notWaiting: 'Client is not waiting in a routing queue',
              ...NO_ROUTE_EXAMPLE,
            }),
          }),
        }),
      },
      clientIdParameter,
    ),
    [`${PREFIX}/routing-decisions`]: inBusiness({
      get: operation('listRoutingDecisions', 'Routing', 'The caller\'s routing decisions, newest first, by client, agent, policy or status', {
        parameters: [
          queryParameter('client', 'Only the decisions about the caller\'s client of this id.', ref('schemas', 'ResourceId'), 'c7'),
          queryParameter('agent', 'Only the decisions naming the caller\'s agent of this id.', ref('schemas', 'ResourceId'), 'a2'),
          queryParameter('policy', 'Only the decisions of this policy.', ref('schemas', 'ResourceId'), 'sales'),
          queryParameter('status', 'Only the decisions in this status.', { enum: [...DECISION_STATUSES] }),
          ...pageParameters(),
        ],
        responses: routeResponses(false, {
          200: json('A page of decisions.', ref('schemas', 'RoutingDecisionPage'), { example: { decisions: [DECISION_EXAMPLE], next_cursor: null } }),
          400: badParameters('A query parameter is invalid.', {
            invalidStatus: 'Invalid status: Invalid option: expected one of "assigned"|"queued"|"rejected"|"canceled"|"already_assigned"',
            invalidLimit: 'Invalid limit: Too big: expected number to be <=100',
            invalidCursor: 'Invalid cursor: pass next_cursor from the previous page',
          }),
        }),
      }),
    }),
    [`${PREFIX}/routing-decisions/{id}`]: inBusiness(
      {
        get: operation('getRoutingDecision', 'Routing', 'Why this agent: the decision with every candidate and the reasons', {
          responses: routeResponses(false, { 200: json('The decision.', ref('schemas', 'RoutingDecision'), { example: DECISION_EXAMPLE }), 404: DECISION_NOT_FOUND }),
        }),
      },
      decisionIdParameter,
    ),
    [`${PREFIX}/agents/{_id}/reroute`]: inBusiness(
      {
        post: operation('rerouteAgent', 'Routing', 'Route again every client the agent holds (a rep who leaves)', {
          description:
            'Each client the agent holds now is routed again, never to this agent: by `policy`, else by the policy that routed it (a client assigned by hand stays when no ' +
            '`policy` is named). The agent\'s assignment ends (`ended_by` user/api) when the client gets a new owner or waits in the queue; it stays when a `reject` policy finds nobody.',
          requestBody: {
            required: false,
            content: { 'application/json': { schema: { type: 'object', properties: { policy: { ...ref('schemas', 'ResourceId'), description: 'Route every client by this policy.' } } }, example: { policy: 'sales' } } },
          },
          responses: routeResponses(true, {
            200: json('One item per client the agent held, oldest assignment first.', closedObject(['agent', 'decisions'], { agent: ref('schemas', 'ResourceId'), decisions: { type: 'array', items: REROUTED_CLIENT } }), {
              example: { agent: 'a1', decisions: [{ client: 'c7', status: 'assigned', decision_id: DECISION_ID, agent: 'a2', position: null }] },
            }),
            400: badBody('A field is invalid.', {}),
            404: problem(404, 'No such agent or policy of the caller.', { agentNotFound: 'Agent not found', policyNotFound: 'Routing policy not found', ...NO_ROUTE_EXAMPLE }),
          }),
        }),
      },
      ownedIdParameter('agent', 'a1'),
    ),
    [`${PREFIX}/routing-decisions/{id}/accept`]: inBusiness(
      {
        post: operation('acceptRoutingDecision', 'Routing', 'The owner takes the routed client: its first-response clock stops', {
          description: 'Counts as the owner\'s first response. Accepting again answers the same. No body.',
          responses: routeResponses(true, {
            200: json('The decision, with `answered_at`.', ref('schemas', 'RoutingDecision'), { example: { ...DECISION_EXAMPLE, answered_at: '2026-11-25T10:03:00.000Z' } }),
            400: BAD_PATH,
            404: DECISION_NOT_FOUND,
            409: problem(409, 'The decision assigns nobody (queued, rejected or canceled).', { notAssigned: `Routing decision ${DECISION_ID} is queued: there is no owner to accept it` }),
          }),
        }),
      },
      decisionIdParameter,
    ),
  },
};
