import type { Client as TemporalClient } from '@temporalio/client';
import { deleteAgentRow } from '../../db/agents';
import { endActiveIn } from '../../db/assignments';
import { withEvents, type NewEvent } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import { removeAgentFromTeams } from '../../db/teams';
import type { Scope } from '../../db/scope';
import { wakeRotation } from '../../starters/rotation-workflow';
import { afterAssignmentsEnded } from '../assignments/after-change';
import { dropAgentFromRotations } from '../rotation/drop-agent';
import { NotFound } from '../errors';
import { findOwnedAgent } from './owned-agent';

export interface DeleteAgentDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  /** Where a CRM lead's workflow runs: its owner follows the client's new holder. */
  taskQueue: string;
  log?: (error: unknown) => void;
}

/**
 * `DELETE /agents/{_id}`, in one transaction: the agent leaves the owner's rotations (which go on with
 * the others; one left with nobody stops) and teams, its active assignments end (`ended_by` agent_deleted, an
 * `assignment.unassigned` each), and its row keeps only its keys (the id is free again). Then what
 * follows the ended assignments (after-change.ts), and the changed rotations' runs are woken.
 */
export async function deleteAgent(deps: DeleteAgentDeps, scope: Scope, agentId: string): Promise<void> {
  const agent = await findOwnedAgent(deps.prisma, scope, agentId);
  const { assignments, rotations } = await withEvents(deps.prisma, async (tx, record) => {
    const now = new Date();
    const events: NewEvent[] = [];
    // Rotations first: a rotation's step locks its row, then the agents it hands periods to.
    const rotations = await dropAgentFromRotations(tx, scope, agent, now, events);
    if (!(await deleteAgentRow(tx, agent.pk, now))) throw new NotFound('Agent not found');
    await removeAgentFromTeams(tx, scope, agent.id);
    const assignments = await endActiveIn(tx, { agentPk: agent.pk }, 'agent_deleted', now, events);
    // Last, once every row it changes is locked (see withEvents).
    for (const event of events) await record(event);
    return { assignments, rotations };
  });
  await afterAssignmentsEnded(deps, scope, assignments.map((a) => ({ business: a.client.business, clientId: a.client.id, workflowId: a.workflowId })), 'agent_deleted');
  for (const r of rotations) await wakeRotation(deps.temporal, r, deps.log);
}
