import { randomUUID } from 'node:crypto';
import type { Prisma as Db } from '../../generated/prisma/client';
import { endActiveIn } from '../../db/assignments';
import { findClientScope } from '../../db/clients';
import type { NewEvent, RecordEvent } from '../../db/events';
import {
  activeAssignment,
  clientHoldsAssignment,
  createDecision,
  findDecisionByKey,
  holdingsOf,
  lastAssignedDecision,
  newestQueuedAt,
  positionOf,
  timeAfter,
  waitingDecision,
} from '../../db/routing-decisions';
import { lockPolicy, settingsOf, unownedRepliesPolicy } from '../../db/routing-policies';
import { newDecisionEvent, newDecisionStatus, type RecordedAssignment } from '../../domain';
import type { DecisionWithKeys } from '../../views/routing-decision';
import { attempt, routingEvent } from './attempt';

/*
 * A route's decision, in the caller's transaction under the policy's lock: a route request, a reply
 * from a client nobody holds, a reroute. The queue's drain and the first-response clock make theirs in
 * drain.ts and first-response.ts.
 */

type Tx = Db.TransactionClient;

/** Another agent holding the client beside the decision's: the answer names them. */
export interface OtherHolder {
  agent: string;
  dt_until: string;
}

export type RouteOutcome =
  | {
      outcome: 'decided';
      decision: DecisionWithKeys;
      position: number | null;
      assigned: RecordedAssignment | null;
      repeated: boolean;
      firstResponse: boolean;
      /** For an assigned or already assigned decision: the client's other active assignments now. */
      otherHolders: OtherHolder[];
    }
  | { outcome: 'keyReused' }
  | { outcome: 'policyGone' };

export interface RouteInput {
  policyPk: string;
  client: { pk: string; id: string };
  notes: string | null;
  idempotencyKey: string | null;
  requestHash: string;
  at: Date;
  /** The events' reason: `api` a route request (the default), `rule` a reply from a client nobody holds. */
  reason?: 'api' | 'rule';
  /** A reroute: the agent the client leaves (never picked) and its assignment, ended when the client gets a new owner. */
  replacing?: { agentId: string; assignmentId: string };
}

/**
 * Routes one client by one policy, in the caller's transaction. A repeated Idempotency-Key answers its
 * decision as it stands now; a client already holding this policy's assignment, or already waiting in
 * its queue, gets that decision again. Otherwise the client is assigned, or waits (behind anyone already
 * waiting: the queue is first come, first served), or is rejected when the policy says so.
 */
export async function routeClient(tx: Tx, record: RecordEvent, input: RouteInput): Promise<RouteOutcome> {
  const policy = await lockPolicy(tx, input.policyPk);
  if (!policy) return { outcome: 'policyGone' };
  const scope = { business: policy.business, ownerId: policy.ownerId };
  const again = (decision: DecisionWithKeys) => standing(tx, decision);

  if (input.idempotencyKey) {
    const earlier = await findDecisionByKey(tx, scope, input.idempotencyKey);
    if (earlier) return earlier.requestHash === input.requestHash ? again(earlier) : { outcome: 'keyReused' };
  }
  const held = await lastAssignedDecision(tx, policy.pk, input.client.pk);
  if (held?.assignmentId && held.assignmentId !== input.replacing?.assignmentId && (await activeAssignment(tx, held.assignmentId))) return again(held);
  const waiting = await waitingDecision(tx, policy.pk, input.client.pk);
  if (waiting) return again(waiting);

  const id = randomUUID();
  const events: NewEvent[] = [];
  // The queue's order is its `queued_at`: taken from the database's clock once the policy's lock is
  // held, and after the newest waiting client's, so it is the order in which the routes committed,
  // whichever process (and whichever clock) made them. A time taken before the lock let a route that
  // waited for it queue ahead of one already answered, and two answers carry the same position.
  const newest = await newestQueuedAt(tx, policy.pk);
  const at = await timeAfter(tx, newest);
  const reason = input.reason ?? 'api';
  const { replacing } = input;
  const tried = await attempt(
    tx,
    policy,
    input.client,
    at,
    id,
    input.notes,
    newest === null,
    events,
    reason,
    replacing && {
      excluded: new Set([replacing.agentId]),
      beforeRecord: async () => void (await endActiveIn(tx, { id: replacing.assignmentId }, 'api', at, events)),
      leaving: replacing.assignmentId,
      answerHolder: true,
    },
  );
  const settings = settingsOf(policy);
  const { holder } = tried;
  const status = newDecisionStatus(!!tried.assigned, !!holder, settings);
  const decision = await createDecision(tx, {
    id,
    scope,
    policy,
    clientPk: input.client.pk,
    status,
    holder: tried.assigned ? { agentPk: tried.assigned.agentPk, assignmentId: tried.assigned.assignmentId, dtUntil: new Date(tried.assigned.dtUntil) } : (holder ?? null),
    candidates: tried.candidates,
    notes: input.notes,
    idempotencyKey: input.idempotencyKey,
    requestHash: input.requestHash,
    at,
  });
  const type = newDecisionEvent(status);
  if (type) events.push(routingEvent(type, decision, scope, reason));
  for (const event of events) await record(event);
  const firstResponse = status === 'assigned' && !!settings.first_response_within;
  const position = status === 'queued' ? await positionOf(tx, decision) : null;
  return { outcome: 'decided', decision, position, assigned: tried.assigned, repeated: false, firstResponse, otherHolders: await otherHoldersOf(tx, decision) };
}

/** The client's active assignments besides the one an assigned (or already assigned) decision names. */
async function otherHoldersOf(tx: Tx, decision: DecisionWithKeys): Promise<OtherHolder[]> {
  if ((decision.status !== 'assigned' && decision.status !== 'already_assigned') || !decision.assignmentId) return [];
  const others = await holdingsOf(tx, decision.clientPk, decision.assignmentId);
  return others.map((h) => ({ agent: h.agentId, dt_until: h.dtUntil.toISOString() }));
}

async function standing(tx: Tx, decision: DecisionWithKeys): Promise<RouteOutcome> {
  const position = decision.status === 'queued' ? await positionOf(tx, decision) : null;
  return { outcome: 'decided', decision, position, assigned: null, repeated: true, firstResponse: false, otherHolders: await otherHoldersOf(tx, decision) };
}

/**
 * A text from the owner's client came in: when the client holds no active assignment and the owner has
 * a policy routing unowned replies, the client is routed by it, in the caller's transaction (the
 * inbound text's), so the `message.received` recorded after names the new owner. Null when not routed.
 */
export async function routeUnownedReply(tx: Tx, record: RecordEvent, client: { business: string; ownerId: string; clientPk: string }, at: Date) {
  const policy = await unownedRepliesPolicy(tx, { business: client.business, ownerId: client.ownerId });
  if (!policy) return null;
  if (await clientHoldsAssignment(tx, client.clientPk)) return null;
  const row = await findClientScope(tx, client.clientPk);
  if (!row) return null;
  const outcome = await routeClient(tx, record, { policyPk: policy.pk, client: { pk: client.clientPk, id: row.id }, notes: null, idempotencyKey: null, requestHash: 'unowned-reply', at, reason: 'rule' });
  return outcome.outcome === 'decided' ? { outcome, policy: { business: policy.business, pk: policy.pk, id: policy.id } } : null;
}

/**
 * Routes again a client the agent holds (POST /agents/{_id}/reroute), in the caller's transaction: never
 * to that agent. The agent's assignment ends (`ended_by` api) when the client gets a new owner or waits
 * in the queue — then, or already held by another under this policy — and stays when nobody is eligible
 * under a `reject` policy.
 */
export async function rerouteAssignment(tx: Tx, record: RecordEvent, input: RouteInput & { replacing: { agentId: string; assignmentId: string } }): Promise<RouteOutcome> {
  const events: NewEvent[] = [];
  const outcome = await routeClient(tx, record, input);
  if (outcome.outcome === 'decided' && outcome.decision.status !== 'rejected') await endActiveIn(tx, { id: input.replacing.assignmentId }, 'api', input.at, events);
  for (const event of events) await record(event);
  return outcome;
}
