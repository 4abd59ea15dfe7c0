import { createHash } from 'node:crypto';
import { withEvents } from '../../db/events';
import { isUniqueViolation } from '../../db/errors';
import { routeClient, type OtherHolder, type RouteInput, type RouteOutcome } from './decide';
import type { Scope } from '../../db/scope';
import { afterAssignmentStarted } from '../assignments/after-change';
import { findOwnedClient } from '../clients/owned-client';
import { Conflict, NotFound } from '../errors';
import { readIdempotencyKey } from '../input/idempotency-key';
import { findOwnedPolicy } from './policies';
import { parseRouteRequest } from './request';
import { createBatchingRunner } from './serial';
import { wakePolicyQueue, type WakeDeps } from '../../starters/routing-queue-workflow';

/** Routes of one policy that arrive together, this many at most to one transaction (docs/routing.md). */
const MAX_ROUTES_PER_TRANSACTION = 10;
const batched = createBatchingRunner<RouteInput, RouteOutcome>(MAX_ROUTES_PER_TRANSACTION);

export type RoutingDeps = WakeDeps;

export const NO_AGENT_AVAILABLE = 'No agent is available';

/** Set only when others hold the client too: who, and until when. */
type OthersHolding = { other_holders?: OtherHolder[] };

export type RouteAnswer =
  | { status: 'assigned'; body: { decision_id: string; status: 'assigned'; agent: string; dt_until: string } & OthersHolding }
  | { status: 'already_assigned'; body: { decision_id: string; status: 'already_assigned'; agent: string; dt_until: string } & OthersHolding }
  | { status: 'queued'; body: { decision_id: string; status: 'queued'; position: number } };

/**
 * What follows a committed route: what follows the new assignment (src/use-cases/assignments/after-change.ts;
 * the reconciler restores a clock a failure left missing), and the queue's workflow for the
 * first client waiting (for a shift start or an absence end; behind it one already runs, and capacity
 * freed wakes it, src/starters/routing-queue-workflow.ts).
 */
export async function afterRouted(deps: RoutingDeps, outcome: Extract<RouteOutcome, { outcome: 'decided' }>, policy: { business: string; pk: string; id: string }): Promise<void> {
  const { decision, assigned, position } = outcome;
  if (assigned) {
    try {
      const firstResponse = outcome.firstResponse ? { business: policy.business, decisionId: decision.id } : null;
      await afterAssignmentStarted(deps, { workflowId: assigned.workflowId, expiry: assigned.expiry, firstResponse });
    } catch (error) {
      deps.log?.(error);
    }
  }
  if (decision.status === 'queued' && !outcome.repeated && position === 1) await wakePolicyQueue(deps, policy);
}

/**
 * POST /clients/{_id}/route: the Idempotency-Key, the body, the client (404), the policy (404), then one
 * transaction under the policy's lock (decide.ts). A client an eligible member holds
 * already is answered `already_assigned` with that holder, its assignment unchanged; an answer that
 * leaves others holding the client beside its agent names them (`other_holders`). The assignment exists when this
 * answers; its expiry workflow is started after the commit (the reconciler restores one a crash left
 * missing). A client that joined the queue wakes the policy's queue workflow.
 */
export async function routeClientRequest(deps: RoutingDeps, scope: Scope, clientId: string, body: unknown, idempotencyKeyHeader?: string): Promise<RouteAnswer> {
  const idempotencyKey = readIdempotencyKey(idempotencyKeyHeader);
  const request = parseRouteRequest(body);
  const client = await findOwnedClient(deps.prisma, scope, clientId);
  const policy = await findOwnedPolicy(deps.prisma, scope, request.policy);
  const requestHash = `v1:${createHash('sha256').update(JSON.stringify([client.id, policy.id, request.notes])).digest('hex')}`;
  const input = { policyPk: policy.pk, client: { pk: client.pk, id: client.id }, notes: request.notes, idempotencyKey, requestHash, at: new Date() };
  const route = () =>
    batched(policy.pk, input, (inputs) =>
      withEvents(deps.prisma, async (tx, record) => {
        const outcomes: RouteOutcome[] = [];
        for (const each of inputs) outcomes.push(await routeClient(tx, record, { ...each, at: new Date() }));
        return outcomes;
      }),
    );
  let outcome: RouteOutcome;
  try {
    outcome = await route();
  } catch (error) {
    // The same key raced in under another policy's lock: the other request's decision is committed now.
    if (!isUniqueViolation(error)) throw error;
    outcome = await route();
  }
  if (outcome.outcome === 'keyReused') throw new Conflict('Idempotency-Key was already used with a different request', 'idempotency-key-reused');
  if (outcome.outcome === 'policyGone') throw new NotFound('Routing policy not found');
  const { decision, position } = outcome;
  await afterRouted(deps, outcome, policy);
  const others = outcome.otherHolders.length > 0 ? { other_holders: outcome.otherHolders } : {};

  switch (decision.status) {
    case 'assigned':
      return { status: 'assigned', body: { decision_id: decision.id, status: 'assigned', agent: decision.agent!.id, dt_until: decision.dtUntil!.toISOString(), ...others } };
    case 'already_assigned':
      return { status: 'already_assigned', body: { decision_id: decision.id, status: 'already_assigned', agent: decision.agent!.id, dt_until: decision.dtUntil!.toISOString(), ...others } };
    case 'queued':
      return { status: 'queued', body: { decision_id: decision.id, status: 'queued', position: position! } };
    case 'rejected':
      throw new Conflict(NO_AGENT_AVAILABLE);
    default:
      throw new Conflict(`Routing decision ${decision.id} was canceled: the client was taken out of the queue`);
  }
}
