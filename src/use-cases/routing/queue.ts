import { cancelWaiting, findDecision, listDecisions, listQueue } from '../../db/routing-decisions';
import type { Scope } from '../../db/scope';
import { routingDecisionView } from '../../views/routing-decision';
import { findOwnedClient } from '../clients/owned-client';
import { NotFound } from '../errors';
import { RESOURCE_ID_PATTERN } from '../input/validation';
import { decodeCursor, pageOf, parseQuery } from '../input/page';
import { RoutingDecisionQuery } from './contract';
import { findOwnedPolicy } from './policies';
import type { RoutingDeps } from './route';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GET /routing-policies/{_id}/queue: the clients waiting, oldest first. */
export async function policyQueue(deps: RoutingDeps, scope: Scope, policyId: string) {
  const policy = await findOwnedPolicy(deps.prisma, scope, policyId);
  const rows = await listQueue(deps.prisma, policy.pk);
  return { queue: rows.map((d, i) => ({ client: d.client.id, position: i + 1, since: d.queuedAt!.toISOString(), decision_id: d.id })) };
}

/** DELETE /clients/{_id}/route[?policy=]: takes the client out of the queue (of that policy, or of every one of the caller's). */
export async function cancelRoute(deps: RoutingDeps, scope: Scope, clientId: string, policyId?: string) {
  const client = await findOwnedClient(deps.prisma, scope, clientId);
  const policy = policyId === undefined ? undefined : await findOwnedPolicy(deps.prisma, scope, policyId);
  const canceled = await cancelWaiting(deps.prisma, scope, client.pk, policy?.pk);
  if (canceled.length === 0) throw new NotFound('Client is not waiting in a routing queue');
  return { client: client.id, canceled: canceled.map((d) => d.id) };
}

/** GET /routing-decisions/{id}: who was picked, and why each member was or was not. */
export async function decisionDetails(deps: RoutingDeps, scope: Scope, id: string) {
  const decision = UUID.test(id) && RESOURCE_ID_PATTERN.test(id) ? await findDecision(deps.prisma, scope, id) : null;
  if (!decision) throw new NotFound('Routing decision not found');
  return routingDecisionView(decision);
}

/**
 * GET /routing-decisions[?client&agent&policy&status&limit&cursor]: the caller's decisions, newest first,
 * a page at a time as the other lists; `client` and `agent` name the caller's client or agent of that id.
 */
export async function decisionList(deps: RoutingDeps, scope: Scope, query: unknown) {
  const { client, agent, policy, status, limit, cursor } = parseQuery(RoutingDecisionQuery, query);
  const after = cursor === undefined ? undefined : decodeCursor(cursor, UUID);
  const rows = await listDecisions(deps.prisma, scope, { clientId: client, agentId: agent, policyId: policy, status, after, take: limit + 1 });
  const { page, next_cursor } = pageOf(rows, limit, (d) => ({ createdAt: d.createdAt, id: d.id }));
  return { decisions: page.map(routingDecisionView), next_cursor };
}
