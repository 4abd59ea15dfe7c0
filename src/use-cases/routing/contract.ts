import { z } from 'zod';
import { DECISION_STATUSES, INELIGIBLE_REASONS, parseIsoDuration, ROUTING_STRATEGIES, WHEN_NONE_ELIGIBLE } from '../../domain';
import { DateTime, page, ResourceId, uuid } from '../input/contract';
import { pageQuery } from '../input/page';
import { optionalName, resourceId } from '../input/validation';

/*
 * The contract of lead routing: the bodies of `PUT /teams/{_id}`, `PUT /routing-policies/{_id}` and
 * `POST /clients/{_id}/route`, which parseBody reads with these very schemas (their zod texts are the
 * 400s), and the views the routes answer with. The OpenAPI document is generated from them.
 */

export const MAX_TEAM_MEMBERS = 100;
export const MAX_WEIGHT = 1000;
export const MAX_CAPACITY = 10_000;
export const MAX_REASSIGNMENTS = 100;
export const MAX_NOTES_LENGTH = 2000;
/** Ten years: the longest routed assignment a policy may give. */
export const MAX_DURATION_MS = 10 * 366 * 86_400_000;
export const DURATION_RULE = 'must be an ISO 8601 duration such as P14D or PT8H';

/** A duration's length from the epoch (months as UTC calendar months), for bounds only. */
export const lengthMs = (parts: { months: number; days: number; ms: number }) => parts.months * 31 * 86_400_000 + parts.days * 86_400_000 + parts.ms;

const duration = z.string().refine((d) => {
  const parts = parseIsoDuration(d);
  return parts !== undefined && lengthMs(parts) > 0 && lengthMs(parts) <= MAX_DURATION_MS;
}, `${DURATION_RULE}, longer than zero and at most 10 years`);

export const TeamRequest = z
  .object({
    name: optionalName,
    members: z
      .array(z.object({ agent: z.string().min(1).max(128), weight: z.number().int().min(1).max(MAX_WEIGHT).optional().meta({ description: 'For `weighted`; default 1.' }) }))
      .max(MAX_TEAM_MEMBERS, `must have at most ${MAX_TEAM_MEMBERS} members`)
      .meta({ description: 'In order: the order round robin follows.' }),
  })
  .meta({ id: 'TeamRequest', description: 'A field not described here is a 400 `Unknown field: {name}`. Each member must be one of the caller\'s agents.' });

export const RoutingPolicyRequest = z
  .object({
    team: resourceId,
    strategy: z.enum(ROUTING_STRATEGIES).default('round_robin'),
    capacity: z.number().int().min(0).max(MAX_CAPACITY).nullish().meta({ description: 'Per agent, unless the agent has its own; absent or null: no limit but the agent\'s.' }),
    working_hours: z.boolean().default(true).meta({ description: 'Skip agents outside their working hours.' }),
    sticky: z.boolean().default(false).meta({ description: 'A client routed again goes back to its last owner under this policy when eligible.' }),
    assignment_duration: duration.nullish().meta({ description: 'ISO 8601 duration: a routed assignment\'s `dt_until` is this far ahead; absent: the default 2143-06-23.', examples: ['P14D'] }),
    first_response_within: z.string().nullish().meta({
      description:
        'ISO 8601 duration, at least 10 seconds: the owner must answer a routed client within it (a message naming the agent, or accept), else the client goes to another ' +
        'eligible member. With `working_hours` the clock runs only inside the owner\'s hours. Absent or null: no clock.',
      examples: ['PT15M'],
    }),
    max_reassignments: z.number().int().min(0).max(MAX_REASSIGNMENTS).nullish().meta({
      description: 'How many times a missed first response moves the client (default 0: escalate at once). Needs `first_response_within`.',
    }),
    next_response_within: z.string().nullish().meta({
      description:
        'ISO 8601 duration, at least 10 seconds: a conversation of a client routed by this policy (its latest decision) that waits this long for an answer is reported once per waiting ' +
        'period (`conversation.overdue`, naming its holders). With `working_hours` the clock runs only inside its first holder\'s hours; a snoozed or closed conversation is not overdue. Absent or null: no clock.',
      examples: ['PT4H'],
    }),
    when_none_eligible: z.enum(WHEN_NONE_ELIGIBLE).default('queue'),
    route_unowned_replies: z.boolean().default(false).meta({
      description: 'A text from a client of the caller that holds no active assignment routes the client by this policy (at most one policy of a user says true: 400 otherwise).',
    }),
  })
  .meta({ id: 'RoutingPolicyRequest', description: 'A field not described here is a 400 `Unknown field: {name}`.' });

export const RouteRequest = z
  .object({ policy: resourceId, notes: z.string().max(MAX_NOTES_LENGTH).nullish().meta({ description: 'The routed assignment\'s `ds_notes`.' }) })
  .meta({ id: 'RouteRequest' });

/** `POST /agents/{_id}/reroute`'s optional body. */
export const RerouteRequest = z.object({ policy: resourceId.nullish().meta({ description: 'Route every client by this policy.' }) });

export const Team = z
  .strictObject({
    _id: ResourceId,
    name: z.string().nullable(),
    members: z.array(z.strictObject({ agent: ResourceId, weight: z.int().min(1) })),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Team' });

export const TeamList = z.strictObject({ teams: z.array(Team) }).meta({ id: 'TeamList' });

export const RoutingPolicy = z
  .strictObject({
    _id: ResourceId,
    version: z.int().min(1).meta({ description: 'Raised by each PUT that changes a setting; every decision names the version it used.' }),
    team: ResourceId,
    strategy: z.enum(ROUTING_STRATEGIES),
    capacity: z.int().nullable(),
    working_hours: z.boolean(),
    sticky: z.boolean(),
    assignment_duration: z.string().nullable(),
    first_response_within: z.string().nullable(),
    max_reassignments: z.int().nullable(),
    next_response_within: z.string().nullable(),
    when_none_eligible: z.enum(WHEN_NONE_ELIGIBLE),
    route_unowned_replies: z.boolean(),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'RoutingPolicy' });

export const RoutingPolicyList = z.strictObject({ routing_policies: z.array(RoutingPolicy) }).meta({ id: 'RoutingPolicyList' });

const holder = z.strictObject({ agent: ResourceId, dt_until: DateTime });

export const RouteAssigned = z
  .strictObject({
    decision_id: uuid(),
    status: z.enum(['assigned', 'already_assigned']).meta({
      description: '`already_assigned`: an eligible member of the team held the client already; that assignment is the answer, unchanged (its own `dt_until`).',
    }),
    agent: ResourceId,
    dt_until: DateTime,
    other_holders: z.array(holder).min(1).optional().meta({
      description: 'Present only when other agents hold the client too (by hand, or by another policy): the owner was added beside them. Their assignments are unchanged.',
    }),
  })
  .meta({ id: 'RouteAssigned' });

export const RouteQueued = z
  .strictObject({ decision_id: uuid(), status: z.literal('queued'), position: z.int().min(1).meta({ description: '1: the next to be assigned.' }) })
  .meta({ id: 'RouteQueued' });

export const RoutingCandidate = z
  .strictObject({
    agent: ResourceId,
    eligible: z.boolean(),
    reasons: z.array(z.enum(INELIGIBLE_REASONS)).meta({ description: 'Why not eligible; empty when eligible.' }),
    load: z.int().min(0).meta({ description: 'Its active assignments at the decision.' }),
    capacity: z.int().nullable().meta({ description: 'The capacity that applied (the agent\'s, else the policy\'s); null: none.' }),
  })
  .meta({ id: 'RoutingCandidate' });

const at = (description?: string) => z.string().nullable().meta({ format: 'date-time', ...(description && { description }) });

export const RoutingDecision = z
  .strictObject({
    decision_id: uuid(),
    policy: ResourceId,
    version: z.int().min(1),
    client: ResourceId,
    status: z.enum(DECISION_STATUSES).meta({ description: '`already_assigned`: the client was held by an eligible member already (`agent`, with that assignment\'s `dt_until`); nothing was assigned.' }),
    agent: ResourceId.nullable(),
    dt_until: at(),
    queued_at: at('When it joined the queue; null if it never waited.'),
    decided_at: DateTime.meta({ description: 'When it reached its status (for a reassigned one: when its current owner got the client, the start of its first-response clock).' }),
    answered_at: at('When the current owner answered (a message naming it, or accept); null while unanswered.'),
    reassignments: z.int().min(0).meta({ description: 'How many times a missed first response moved the client.' }),
    escalated_at: at('When a missed first response found no reassignment left or nobody else eligible: the owner kept the client.'),
    candidates: z.array(RoutingCandidate).meta({ description: 'Every team member in member order, as assessed when it was last decided (for a queued one: its last look).' }),
  })
  .meta({ id: 'RoutingDecision' });

export const RoutingQueue = z
  .strictObject({
    queue: z.array(z.strictObject({ client: ResourceId, position: z.int().min(1), since: DateTime, decision_id: uuid() })).meta({ description: 'Oldest first.' }),
  })
  .meta({ id: 'RoutingQueue' });

export const RoutingDecisionPage = page('decisions', RoutingDecision, 'Newest first.').strict().meta({ id: 'RoutingDecisionPage' });

export const RouteCanceled = z
  .strictObject({ client: ResourceId, canceled: z.array(uuid()).meta({ description: 'The waiting decisions taken out.' }) })
  .meta({ id: 'RouteCanceled' });

/** One client of a rerouted agent: where it went. */
export const ReroutedClient = z.strictObject({
  client: ResourceId,
  status: z.enum(['assigned', 'queued', 'rejected', 'kept', 'already_assigned']).meta({
    description: '`kept` (and `rejected`): the agent keeps the client. `already_assigned`: another eligible member held it already and keeps it; the agent\'s assignment ends.',
  }),
  decision_id: uuid().nullable(),
  agent: ResourceId.nullable().meta({ description: 'Who holds the client now; null while it waits.' }),
  position: z.int().min(1).nullable(),
});

export const Rerouted = z.strictObject({ agent: ResourceId, decisions: z.array(ReroutedClient) });

/** `GET /routing-decisions`' query: `client` and `agent` name the caller's client or agent of that id. */
export const RoutingDecisionQuery = z.object({
  client: resourceId.optional().meta({ description: 'Only the decisions about the caller\'s client of this id.', examples: ['c7'] }),
  agent: resourceId.optional().meta({ description: 'Only the decisions naming the caller\'s agent of this id.', examples: ['a2'] }),
  policy: resourceId.optional().meta({ description: 'Only the decisions of this policy.', examples: ['sales'] }),
  status: z.enum(DECISION_STATUSES).optional().meta({ description: 'Only the decisions in this status.' }),
  ...pageQuery,
});

export const ROUTING_SCHEMAS = {
  requests: [TeamRequest, RoutingPolicyRequest, RouteRequest],
  responses: [Team, TeamList, RoutingPolicy, RoutingPolicyList, RouteAssigned, RouteQueued, RoutingCandidate, RoutingDecision, RoutingQueue, RoutingDecisionPage, RouteCanceled],
};
