import type { Client as TemporalClient } from '@temporalio/client';
import { unassignAgent as unassignRow } from '../../db/assignments';
import type { Prisma } from '../../db/prisma';
import { changedBy } from '../../views/changed-by';
import { findOwnedClient } from '../clients/owned-client';
import { NotFound } from '../errors';
import type { Scope } from '../../db/scope';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { afterAssignmentsEnded } from './after-change';

export interface UnassignDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  /** Where the routing queues' workflows run: an unassignment frees capacity for clients waiting. */
  taskQueue: string;
  log?: (error: unknown) => void;
}

/** Ends the agent's active assignment on the client now; then what follows an ended assignment (after-change.ts). */
export async function unassignAgent(deps: UnassignDeps, scope: Scope, client: { pk: string; id: string }, agentId: string) {
  // An id no agent can have is not assigned; PostgreSQL would refuse one with a NUL.
  const ended = RESOURCE_ID_PATTERN.test(agentId) ? await unassignRow(deps.prisma, scope, client.pk, agentId) : null;
  if (!ended) throw new NotFound(`Agent ${agentId} is not assigned to this client`);
  // The row is already unassigned, which is the answer; a workflow that missed the signal reads the
  // row at its next wake-up (at most one timer chunk away) and ends then.
  await afterAssignmentsEnded(deps, scope, [{ business: scope.business, clientId: client.id, workflowId: ended.workflowId }], 'api');
  return {
    client: client.id,
    agent: agentId,
    dt_until: ended.dtUntil.toISOString(),
    status: ended.status,
    ended_at: ended.endedAt.toISOString(),
    ended_by: changedBy('api')!,
    workflow_id: ended.workflowId,
  };
}

/** The unassign request: the caller's client (404 otherwise), then its agent's active assignment. */
export async function unassignAgentRequest(deps: UnassignDeps, scope: Scope, clientId: string, agentId: string) {
  const client = await findOwnedClient(deps.prisma, scope, clientId);
  return unassignAgent(deps, scope, client, agentId);
}
