import { Prisma as Db } from '../generated/prisma/client';
import type { Candidate, Holding } from '../domain';
import type { DecisionWithKeys } from '../views/routing-decision';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/*
 * The rows of `routing_decisions`, and what routing reads of a client's assignments. The rules that
 * make a decision (src/use-cases/routing/) run these inside one transaction holding the policy's lock.
 */

type Tx = Db.TransactionClient;

export const DECISION_INCLUDE = { policy: { select: { id: true } }, client: { select: { id: true } }, agent: { select: { id: true } } } as const;

const json = (candidates: Candidate[]) => candidates as unknown as Db.InputJsonArray;

/** The client's active assignments (but `leaving`, the one a reroute replaces), oldest first. */
export async function holdingsOf(tx: Tx, clientPk: string, leaving?: string): Promise<Holding[]> {
  const rows = await tx.assignment.findMany({
    where: { clientPk, status: 'active', ...(leaving && { id: { not: leaving } }) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, agentPk: true, dtUntil: true, agent: { select: { id: true } } },
  });
  return rows.map((r) => ({ agentPk: r.agentPk, agentId: r.agent.id, assignmentId: r.id, dtUntil: r.dtUntil }));
}

/** The pair's active assignment, which routing has just recorded. */
export function activeAssignmentOf(tx: Tx, clientPk: string, agentPk: string) {
  return tx.assignment.findFirstOrThrow({ where: { clientPk, agentPk, status: 'active' }, select: { id: true } });
}

/** The assignment with this id, while it is active. */
export function activeAssignment(tx: Tx, id: string) {
  return tx.assignment.findFirst({ where: { id, status: 'active' }, select: { workflowId: true } });
}

export async function clientHoldsAssignment(tx: Tx, clientPk: string): Promise<boolean> {
  return (await tx.assignment.count({ where: { clientPk, status: 'active' } })) > 0;
}

/**
 * The first decision `where` finds, with its keys; one statement when there is none (the usual case on a
 * new route), since a lookup that includes its relations reads them even for no row.
 */
async function firstDecision(tx: Tx, where: Db.RoutingDecisionWhereInput, orderBy?: Db.RoutingDecisionOrderByWithRelationInput) {
  const found = await tx.routingDecision.findFirst({ where, orderBy, select: { id: true } });
  return found && tx.routingDecision.findUnique({ where: { id: found.id }, include: DECISION_INCLUDE });
}

/** The policy's latest decision that assigned the client. */
export function lastAssignedDecision(tx: Tx, policyPk: string, clientPk: string) {
  return firstDecision(tx, { policyPk, clientPk, status: 'assigned' }, { decidedAt: 'desc' });
}

/** The client's place in the policy's queue, while it waits. */
export function waitingDecision(tx: Tx, policyPk: string, clientPk: string) {
  return firstDecision(tx, { policyPk, clientPk, status: 'queued' });
}

/** When the newest client waiting in the policy's queue was queued; null when nobody waits. */
export async function newestQueuedAt(tx: Tx, policyPk: string): Promise<Date | null> {
  const newest = await tx.routingDecision.findFirst({ where: { policyPk, status: 'queued' }, orderBy: { queuedAt: 'desc' }, select: { queuedAt: true } });
  return newest ? newest.queuedAt : null;
}

/** The client waiting longest in the policy's queue. */
export function oldestWaiting(tx: Tx, policyPk: string) {
  return tx.routingDecision.findFirst({ where: { policyPk, status: 'queued' }, orderBy: [{ queuedAt: 'asc' }, { id: 'asc' }], include: DECISION_INCLUDE });
}

/** The database's clock now, and at least a millisecond (the column's precision) after `after`. */
export async function timeAfter(tx: Tx, after: Date | null): Promise<Date> {
  const [{ now }] = await tx.$queryRaw<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
  return after && now.getTime() <= after.getTime() ? new Date(after.getTime() + 1) : now;
}

/** Where a waiting decision stands in its policy's queue, 1 the next to be assigned. */
export async function positionOf(tx: Tx | Prisma, d: { id: string; policyPk: string; queuedAt: Date | null }): Promise<number> {
  const ahead = await tx.routingDecision.count({
    where: { policyPk: d.policyPk, status: 'queued', OR: [{ queuedAt: { lt: d.queuedAt! } }, { queuedAt: d.queuedAt!, id: { lt: d.id } }] },
  });
  return ahead + 1;
}

export interface NewDecision {
  id: string;
  scope: Scope;
  policy: { pk: string; version: number };
  clientPk: string;
  status: string;
  holder: { agentPk: string; assignmentId: string; dtUntil: Date } | null;
  candidates: Candidate[];
  notes: string | null;
  idempotencyKey: string | null;
  requestHash: string;
  at: Date;
}

export function createDecision(tx: Tx, d: NewDecision): Promise<DecisionWithKeys> {
  return tx.routingDecision.create({
    data: {
      id: d.id,
      ...d.scope,
      policyPk: d.policy.pk,
      version: d.policy.version,
      clientPk: d.clientPk,
      status: d.status,
      waitingSlot: d.status === 'queued' ? true : null,
      agentPk: d.holder?.agentPk ?? null,
      assignmentId: d.holder?.assignmentId ?? null,
      dtUntil: d.holder?.dtUntil ?? null,
      candidates: json(d.candidates),
      notes: d.notes,
      idempotencyKey: d.idempotencyKey,
      requestHash: d.requestHash,
      queuedAt: d.status === 'queued' ? d.at : null,
      decidedAt: d.at,
    },
    include: DECISION_INCLUDE,
  });
}

/** What a decision records of the assignment routing made (or found): the policy's version, the agent, and why. */
export interface DecidedHolder {
  version: number;
  agentPk: string;
  assignmentId: string;
  dtUntil: Date;
  candidates: Candidate[];
  decidedAt: Date;
}

const holderColumns = (h: DecidedHolder) => ({ ...h, candidates: json(h.candidates) });

/** queued → assigned (the queue assigned the client) or already_assigned (it was found held meanwhile). */
export function leaveQueue(tx: Tx, id: string, status: 'assigned' | 'already_assigned', holder: DecidedHolder): Promise<DecisionWithKeys> {
  return tx.routingDecision.update({ where: { id }, data: { status, waitingSlot: null, ...holderColumns(holder) }, include: DECISION_INCLUDE });
}

/** A waiting decision keeps its place, with the candidates as the last look saw them. */
export async function saveCandidates(tx: Tx, id: string, candidates: Candidate[]): Promise<void> {
  await tx.routingDecision.update({ where: { id }, data: { candidates: json(candidates) } });
}

/** A missed first response moved the client: the decision names its new holder and remembers the earlier ones. */
export function recordReassigned(tx: Tx, id: string, holder: DecidedHolder, heldBy: string[]): Promise<DecisionWithKeys> {
  return tx.routingDecision.update({ where: { id }, data: { ...holderColumns(holder), reassignments: { increment: 1 }, heldBy }, include: DECISION_INCLUDE });
}

/** A missed first response nobody could take over: escalated, the owner keeps the client. */
export function recordEscalated(tx: Tx, id: string, at: Date, candidates?: Candidate[]): Promise<DecisionWithKeys> {
  return tx.routingDecision.update({ where: { id }, data: { escalatedAt: at, ...(candidates && { candidates: json(candidates) }) }, include: DECISION_INCLUDE });
}

/** A decision whose first-response clock runs, with what the clock needs of its owner. */
export async function decisionForClock(tx: Tx, id: string) {
  return tx.routingDecision.findUniqueOrThrow({ where: { id }, include: { ...DECISION_INCLUDE, agent: { select: { id: true, timezone: true, workingHours: true } } } });
}

export async function policyOfDecision(tx: Tx, id: string): Promise<string | null> {
  return (await tx.routingDecision.findUnique({ where: { id }, select: { policyPk: true } }))?.policyPk ?? null;
}

/** The decision a route request with this Idempotency-Key made for the user, or null. */
export function findDecisionByKey(prisma: Prisma | Tx, scope: Scope, idempotencyKey: string) {
  return prisma.routingDecision.findUnique({ where: { business_ownerId_idempotencyKey: { ...scope, idempotencyKey } }, include: DECISION_INCLUDE });
}

export interface DecisionFilter {
  clientId?: string;
  agentId?: string;
  policyId?: string;
  status?: string;
  /** The last decision of the page before (newest first). */
  after?: { createdAt: Date; id: string };
  take: number;
}

/** A page of the owner's decisions, newest first; `clientId` / `agentId` name the client or agent that has that id now. */
export function listDecisions(prisma: Prisma, scope: Scope, filter: DecisionFilter) {
  const { clientId, agentId, policyId, status, after, take } = filter;
  return prisma.routingDecision.findMany({
    where: {
      ...scope,
      ...(status && { status }),
      ...(clientId !== undefined && { client: { is: { id: clientId, liveSlot: true } } }),
      ...(agentId !== undefined && { agent: { is: { id: agentId, liveSlot: true } } }),
      ...(policyId !== undefined && { policy: { is: { id: policyId } } }),
      ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    include: DECISION_INCLUDE,
    take,
  });
}

export function findDecision(prisma: Prisma, scope: Scope, id: string) {
  return prisma.routingDecision.findFirst({ where: { id, ...scope }, include: DECISION_INCLUDE });
}

/** How many clients wait in these policies' queues. */
export function countWaiting(tx: Tx | Prisma, policyPks: string[]): Promise<number> {
  return policyPks.length === 0 ? Promise.resolve(0) : tx.routingDecision.count({ where: { policyPk: { in: policyPks }, status: 'queued' } });
}

/** The policy's queue, oldest first. */
export function listQueue(prisma: Prisma, policyPk: string) {
  return prisma.routingDecision.findMany({ where: { policyPk, status: 'queued' }, orderBy: [{ queuedAt: 'asc' }, { id: 'asc' }], include: { client: { select: { id: true } } } });
}

/** queued → canceled for the client's waiting places (of one policy, when given); the decisions taken out. */
export function cancelWaiting(prisma: Prisma, scope: Scope, clientPk: string, policyPk?: string, now = new Date()) {
  return prisma.routingDecision.updateManyAndReturn({
    where: { ...scope, clientPk, status: 'queued', ...(policyPk && { policyPk }) },
    data: { status: 'canceled', waitingSlot: null, decidedAt: now },
  });
}

/** A client's erasure: its waiting places canceled, and every decision about it without its notes. */
export async function eraseClientDecisions(tx: Tx, clientPk: string, now: Date): Promise<void> {
  await tx.routingDecision.updateMany({ where: { clientPk, status: 'queued' }, data: { status: 'canceled', waitingSlot: null, decidedAt: now } });
  await tx.routingDecision.updateMany({ where: { clientPk, notes: { not: null } }, data: { notes: null } });
}

/** An erased CRM lead's decision forgets the key that names its record. */
export async function forgetDecisionKey(tx: Tx, clientPk: string, idempotencyKey: string): Promise<void> {
  await tx.routingDecision.updateMany({ where: { clientPk, idempotencyKey }, data: { idempotencyKey: null } });
}

/** The reconciler's policies with a client waiting since before `before` (each policy once). */
export async function policiesWaitingBefore(prisma: Prisma, filter: { before: Date; business?: string }): Promise<{ pk: string; id: string; business: string }[]> {
  const rows = await prisma.routingDecision.findMany({
    where: { status: 'queued', queuedAt: { lt: filter.before }, ...(filter.business && { business: filter.business }) },
    distinct: ['policyPk'],
    select: { policy: { select: { pk: true, id: true, business: true } } },
  });
  return rows.map((r) => r.policy);
}

/** The owner's policies with clients waiting: those to wake when capacity may have freed. */
export async function policiesWithWaiting(prisma: Prisma, scope: Scope): Promise<{ pk: string; id: string; business: string }[]> {
  const rows = await prisma.routingDecision.findMany({ where: { ...scope, status: 'queued' }, distinct: ['policyPk'], select: { policy: { select: { pk: true, id: true, business: true } } } });
  return rows.map((r) => r.policy);
}

/**
 * The current owner answered: the decisions that gave it this client, whose clock runs, stop it.
 * `decisionId` narrows to one decision (accept). Returns the decisions answered now.
 */
export function markAnswered(prisma: Prisma | Tx, where: { clientPk: string; agentPk: string } | { id: string; agentPk?: undefined }, at: Date) {
  return prisma.routingDecision.updateManyAndReturn({
    where: { ...where, status: 'assigned', answeredAt: null },
    data: { answeredAt: at },
    select: { id: true, business: true, clientPk: true, clockWorkflowId: true, client: { select: { id: true } } },
  });
}
