import type { Prisma } from '../../db/prisma';
import { findPolicy, listPolicies, putPolicy } from '../../db/routing-policies';
import type { Scope } from '../../db/scope';
import { findTeam } from '../../db/teams';
import { routingPolicyView } from '../../views/team';
import { Invalid, NotFound } from '../errors';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { parsePolicyRequest } from './request';
import { wakePolicyQueue, type WakeDeps } from '../../starters/routing-queue-workflow';

/** A changed policy may take waiting clients at once (a higher capacity, hours no longer checked). */
export type PolicyDeps = WakeDeps & {
  /** The shortest `first_response_within` accepted (10 s); tests lower it as rotations' minimum period. */
  routingMinFirstResponseMs?: number;
};

/** PUT /routing-policies/{_id}: its team must be one of the caller's (400 otherwise). A change is a new version. */
export async function putPolicyRequest(deps: PolicyDeps, scope: Scope, policyId: string, body: unknown) {
  if (!RESOURCE_ID_PATTERN.test(policyId)) throw new Invalid('Invalid _id: must be 1-128 characters of A-Z a-z 0-9 . _ : @ -');
  const settings = parsePolicyRequest(body, { minFirstResponseMs: deps.routingMinFirstResponseMs });
  if (!(await findTeam(deps.prisma, scope, settings.team))) throw new Invalid(`Team ${settings.team} not found or not authorized`);
  const put = await putPolicy(deps.prisma, scope, policyId, settings);
  if (put.outcome === 'unownedRepliesTaken') throw new Invalid(`Invalid route_unowned_replies: policy ${put.by} already routes unowned replies`);
  const { policy, changed } = put;
  if (changed) await wakePolicyQueue(deps, policy);
  return routingPolicyView(policy);
}

/** The caller's policy, or the same 404 whether it is missing, another's, or an impossible id. */
export async function findOwnedPolicy(prisma: Prisma, scope: Scope, policyId: string) {
  const policy = RESOURCE_ID_PATTERN.test(policyId) ? await findPolicy(prisma, scope, policyId) : null;
  if (!policy) throw new NotFound('Routing policy not found');
  return policy;
}

export async function policyDetails(deps: PolicyDeps, scope: Scope, policyId: string) {
  return routingPolicyView(await findOwnedPolicy(deps.prisma, scope, policyId));
}

export async function policyList(deps: PolicyDeps, scope: Scope) {
  return { routing_policies: (await listPolicies(deps.prisma, scope)).map(routingPolicyView) };
}
