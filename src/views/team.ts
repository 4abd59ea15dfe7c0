import type { RoutingPolicy, Team } from '../generated/prisma/client';
import type { PolicySettings } from '../domain';

/** A team as `GET /teams/{_id}` shows it: members in order, each with its weight. */
export const teamView = (t: Team) => ({
  _id: t.id,
  name: t.name,
  members: t.members as { agent: string; weight: number }[],
  created_at: t.createdAt.toISOString(),
  updated_at: t.updatedAt.toISOString(),
});

/** A routing policy as `GET /routing-policies/{_id}` shows it: the version in force. */
export const routingPolicyView = (p: RoutingPolicy) => ({
  _id: p.id,
  version: p.version,
  first_response_within: null as string | null,
  max_reassignments: null as number | null,
  next_response_within: null as string | null,
  ...(p.settings as unknown as PolicySettings),
  created_at: p.createdAt.toISOString(),
  updated_at: p.updatedAt.toISOString(),
});
