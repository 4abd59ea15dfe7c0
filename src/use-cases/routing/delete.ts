import { countWaiting } from '../../db/routing-decisions';
import { deletePolicyRow, lockPolicy, policiesOfTeam } from '../../db/routing-policies';
import type { Scope } from '../../db/scope';
import { deleteTeamRow, findTeam } from '../../db/teams';
import { Conflict, NotFound } from '../errors';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { findOwnedPolicy } from './policies';
import type { WakeDeps } from '../../starters/routing-queue-workflow';

/*
 * DELETE /teams/{_id} and DELETE /routing-policies/{_id}: refused (409) while a client waits in a queue
 * that needs them, so no waiting client is dropped or left in a queue nothing can drain. The check and
 * the delete are one transaction holding the policies' locks, which a route or a drain takes first: no
 * client can join a queue between them.
 */

export const waitingInPolicy = (policyId: string, waiting: number) =>
  `Routing policy ${policyId} has ${waiting} client${waiting === 1 ? '' : 's'} waiting in its queue: take ${waiting === 1 ? 'it' : 'them'} out first (DELETE /clients/{_id}/route?policy=${policyId})`;

/** DELETE /routing-policies/{_id}: the policy and its decisions go; 409 while clients wait in its queue. */
export async function deletePolicyRequest(deps: WakeDeps, scope: Scope, policyId: string): Promise<void> {
  const found = await findOwnedPolicy(deps.prisma, scope, policyId);
  await deps.prisma.$transaction(async (tx) => {
    const policy = await lockPolicy(tx, found.pk);
    if (!policy) throw new NotFound('Routing policy not found');
    const waiting = await countWaiting(tx, [policy.pk]);
    if (waiting > 0) throw new Conflict(waitingInPolicy(policy.id, waiting));
    await deletePolicyRow(tx, policy.pk);
  });
}

/** DELETE /teams/{_id}: 409 while clients wait in the queue of a policy routing by it; its policies then have no members until it is put again. */
export async function deleteTeamRequest(deps: WakeDeps, scope: Scope, teamId: string): Promise<void> {
  if (!RESOURCE_ID_PATTERN.test(teamId) || !(await findTeam(deps.prisma, scope, teamId))) throw new NotFound('Team not found');
  await deps.prisma.$transaction(async (tx) => {
    const policies = await policiesOfTeam(tx, scope, teamId);
    for (const policy of policies) await lockPolicy(tx, policy.pk);
    for (const policy of policies) {
      const waiting = await countWaiting(tx, [policy.pk]);
      if (waiting > 0) throw new Conflict(`Team ${teamId} is the team of routing policy ${policy.id}, which has ${waiting} client${waiting === 1 ? '' : 's'} waiting in its queue: take ${waiting === 1 ? 'it' : 'them'} out first (DELETE /clients/{_id}/route?policy=${policy.id})`);
    }
    if (!(await deleteTeamRow(tx, scope, teamId))) throw new NotFound('Team not found');
  });
}
