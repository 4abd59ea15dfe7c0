import { parseIsoDuration, type PolicySettings } from '../../domain';
import type { TeamMember } from '../../db/teams';
import { Invalid } from '../errors';
import { parseBody } from '../input/validation';
import { DURATION_RULE, lengthMs, MAX_DURATION_MS, RouteRequest, RoutingPolicyRequest, TeamRequest } from './contract';


export function parseTeamRequest(body: unknown): { name: string | null; members: TeamMember[] } {
  const team = parseBody(TeamRequest, body);
  const seen = new Set<string>();
  for (const m of team.members) {
    if (seen.has(m.agent)) throw new Invalid(`Duplicate agent ${m.agent} in members`);
    seen.add(m.agent);
  }
  return { name: team.name, members: team.members.map((m) => ({ agent: m.agent, weight: m.weight ?? 1 })) };
}

/** The shortest first-response time a policy may give (issue 31: 10 seconds). */
export const MIN_FIRST_RESPONSE_MS = 10_000;

/** A policy as stored. */
export function parsePolicyRequest(body: unknown, options: { minFirstResponseMs?: number } = {}): PolicySettings {
  const p = parseBody(RoutingPolicyRequest, body);
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

export function parseRouteRequest(body: unknown): RouteRequest {
  const r = parseBody(RouteRequest, body);
  return { policy: r.policy, notes: r.notes ?? null };
}
