import { z } from 'zod';
import { parseIsoDuration, ROUTING_STRATEGIES, WHEN_NONE_ELIGIBLE, type PolicySettings } from '../../domain';
import type { TeamMember } from '../../db/teams';
import { Invalid } from '../errors';
import { optionalName, parseBody, resourceId } from '../input/validation';

export const MAX_TEAM_MEMBERS = 100;
export const MAX_WEIGHT = 1000;
export const MAX_CAPACITY = 10_000;
export const MAX_REASSIGNMENTS = 100;
/** Ten years: the longest routed assignment a policy may give. */
const MAX_DURATION_MS = 10 * 366 * 86_400_000;

const teamBody = z.object({
  name: optionalName,
  members: z
    .array(z.object({ agent: z.string().min(1).max(128), weight: z.number().int().min(1).max(MAX_WEIGHT).optional() }))
    .max(MAX_TEAM_MEMBERS, `must have at most ${MAX_TEAM_MEMBERS} members`),
});

export function parseTeamRequest(body: unknown): { name: string | null; members: TeamMember[] } {
  const team = parseBody(teamBody, body);
  const seen = new Set<string>();
  for (const m of team.members) {
    if (seen.has(m.agent)) throw new Invalid(`Duplicate agent ${m.agent} in members`);
    seen.add(m.agent);
  }
  return { name: team.name, members: team.members.map((m) => ({ agent: m.agent, weight: m.weight ?? 1 })) };
}

const DURATION_RULE = 'must be an ISO 8601 duration such as P14D or PT8H';

const duration = z.string().refine((d) => {
  const parts = parseIsoDuration(d);
  return parts !== undefined && parts.months * 31 * 86_400_000 + parts.days * 86_400_000 + parts.ms > 0 && parts.months * 31 * 86_400_000 + parts.days * 86_400_000 + parts.ms <= MAX_DURATION_MS;
}, `${DURATION_RULE}, longer than zero and at most 10 years`);

const policyBody = z.object({
  team: resourceId,
  strategy: z.enum(ROUTING_STRATEGIES).default('round_robin'),
  capacity: z.number().int().min(0).max(MAX_CAPACITY).nullish(),
  working_hours: z.boolean().default(true),
  sticky: z.boolean().default(false),
  assignment_duration: duration.nullish(),
  first_response_within: z.string().nullish(),
  max_reassignments: z.number().int().min(0).max(MAX_REASSIGNMENTS).nullish(),
  next_response_within: z.string().nullish(),
  when_none_eligible: z.enum(WHEN_NONE_ELIGIBLE).default('queue'),
  route_unowned_replies: z.boolean().default(false),
});

/** The shortest first-response time a policy may give (issue 31: 10 seconds). */
export const MIN_FIRST_RESPONSE_MS = 10_000;

/** A duration's length from the epoch (months as UTC calendar months), for bounds only. */
const lengthMs = (parts: { months: number; days: number; ms: number }) => parts.months * 31 * 86_400_000 + parts.days * 86_400_000 + parts.ms;

/** A policy as stored. */
export function parsePolicyRequest(body: unknown, options: { minFirstResponseMs?: number } = {}): PolicySettings {
  const p = parseBody(policyBody, body);
  const minMs = options.minFirstResponseMs ?? MIN_FIRST_RESPONSE_MS;
  for (const field of ['first_response_within', 'next_response_within'] as const) {
    const given = p[field];
    if (given === undefined || given === null) continue;
    const parts = parseIsoDuration(given);
    if (!parts || lengthMs(parts) < minMs || lengthMs(parts) > MAX_DURATION_MS) {
      throw new Invalid(`Invalid ${field}: ${DURATION_RULE}, at least ${minMs / 1000} seconds and at most 10 years`);
    }
  }
  if (p.max_reassignments != null && !p.first_response_within) throw new Invalid('Invalid max_reassignments: needs first_response_within');
  return {
    team: p.team,
    strategy: p.strategy,
    capacity: p.capacity ?? null,
    working_hours: p.working_hours,
    sticky: p.sticky,
    assignment_duration: p.assignment_duration ?? null,
    when_none_eligible: p.when_none_eligible,
    route_unowned_replies: p.route_unowned_replies,
    // Only when set: a policy without them keeps the settings (and version) it had.
    ...(p.first_response_within && { first_response_within: p.first_response_within, max_reassignments: p.max_reassignments ?? 0 }),
    ...(p.next_response_within && { next_response_within: p.next_response_within }),
  };
}

export interface RouteRequest {
  policy: string;
  notes: string | null;
}

export const MAX_NOTES_LENGTH = 2000;

export function parseRouteRequest(body: unknown): RouteRequest {
  const r = parseBody(z.object({ policy: resourceId, notes: z.string().max(MAX_NOTES_LENGTH).nullish() }), body);
  return { policy: r.policy, notes: r.notes ?? null };
}
