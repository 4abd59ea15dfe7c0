import { findAgent } from '../../db/agents';
import { listHeldClients, type HeldCursor } from '../../db/assignments';
import { withEvents } from '../../db/events';
import { rerouteAssignment, type RouteOutcome } from './decide';
import { findPolicy } from '../../db/routing-policies';
import type { Scope } from '../../db/scope';
import { NotFound } from '../errors';
import { parseBody, RESOURCE_ID_PATTERN } from '../input/validation';
import { RerouteRequest } from './contract';
import { findOwnedPolicy } from './policies';
import { afterAssignmentsEnded, type EndedAssignment } from '../assignments/after-change';
import { afterRouted, type RoutingDeps } from './route';
import { createBatchingRunner } from './serial';

type RerouteInput = Parameters<typeof rerouteAssignment>[2];

// One reroute of a policy at a time in this process (no batching: each is its own transaction).
const serially = createBatchingRunner<RerouteInput, RouteOutcome>(1);
const PAGE = 100;

export interface RerouteItem {
  client: string;
  /**
   * `kept`: the agent keeps the client — no policy to route it by, or nobody eligible under a `reject`
   * policy (`decision_id` then says so). `already_assigned`: another eligible member held it already and
   * keeps it; the agent's assignment ends.
   */
  status: 'assigned' | 'queued' | 'rejected' | 'kept' | 'already_assigned';
  decision_id: string | null;
  agent: string | null;
  position: number | null;
}

/**
 * POST /agents/{_id}/reroute `{ policy? }`: every client the agent holds now is routed again, never to
 * that agent — by `policy`, else by the policy that routed it (a client assigned by hand, without
 * `policy`, stays). Each client is one transaction under its policy's lock; the agent's assignment ends
 * when the client gets a new owner or waits, and stays when a `reject` policy finds nobody.
 */
export async function rerouteAgentRequest(deps: RoutingDeps, scope: Scope, agentId: string, body: unknown): Promise<{ agent: string; decisions: RerouteItem[] }> {
  const request = parseBody(RerouteRequest, body ?? {});
  const agent = RESOURCE_ID_PATTERN.test(agentId) ? await findAgent(deps.prisma, scope, agentId) : null;
  if (!agent) throw new NotFound('Agent not found');
  const named = request.policy ? await findOwnedPolicy(deps.prisma, scope, request.policy) : null;

  const decisions: RerouteItem[] = [];
  let after: HeldCursor | undefined;
  for (;;) {
    const page = await listHeldClients(deps.prisma, agent.pk, new Date(), after, PAGE);
    const ended: EndedAssignment[] = [];
    for (const held of page) {
      const routedBy = held.routedBy as { policy?: string } | null;
      const policy = named ?? (routedBy?.policy ? await findPolicy(deps.prisma, scope, routedBy.policy) : null);
      const kept: RerouteItem = { client: held.client.id, status: 'kept', decision_id: null, agent: agent.id, position: null };
      if (!policy) {
        decisions.push(kept);
        continue;
      }
      const input = {
        policyPk: policy.pk,
        client: { pk: held.clientPk, id: held.client.id },
        notes: held.notes,
        idempotencyKey: null,
        requestHash: 'reroute',
        at: new Date(),
        replacing: { agentId: agent.id, assignmentId: held.id },
      };
      const outcome = await serially(policy.pk, input, async ([one]) => [await withEvents(deps.prisma, (tx, record) => rerouteAssignment(tx, record, { ...one, at: new Date() }))]);
      if (outcome.outcome !== 'decided') {
        decisions.push(kept);
        continue;
      }
      await afterRouted(deps, outcome, policy);
      const { decision, position } = outcome;
      if (decision.status !== 'rejected') ended.push({ business: scope.business, clientId: held.client.id, workflowId: held.workflowId });
      const status = decision.status === 'assigned' || decision.status === 'queued' || decision.status === 'rejected' || decision.status === 'already_assigned' ? decision.status : 'kept';
      decisions.push({ client: held.client.id, status, decision_id: decision.id, agent: status === 'rejected' ? agent.id : (decision.agent?.id ?? null), position: decision.status === 'queued' ? position : null });
    }
    await afterAssignmentsEnded(deps, scope, ended, 'api');
    if (page.length < PAGE) break;
    after = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id };
  }
  return { agent: agent.id, decisions };
}
