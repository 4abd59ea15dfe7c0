import { randomUUID } from 'node:crypto';
import { Prisma as Db } from '../generated/prisma/client';
import {
  addIsoDuration,
  addWorkingTime,
  assess,
  DEFAULT_DT_UNTIL,
  nextEligibilityChange,
  pick,
  type Candidate,
  type EventReason,
  type EventType,
  type MemberState,
  type Presence,
  type RecordedAssignment,
  type WorkingHours,
} from '../domain';
import { routingDecisionView, type DecisionWithKeys } from '../views/routing-decision';
import { absenceEndsAt } from './agent-absences';
import { findAgents, loadsOf, lockAgents } from './agents';
import { endActiveIn, recordForOwner } from './assignments';
import type { NewEvent, RecordEvent } from './events';
import type { Prisma } from './prisma';
import { lockPolicy, saveStrategyState, settingsOf, strategyStateOf, unownedRepliesPolicy, type PolicyRow } from './routing-policies';
import type { Scope } from './scope';
import { findTeam, membersOf } from './teams';

/*
 * Every change of `routing_decisions`, and the one transaction that picks an agent: it holds the
 * policy's row lock (one route or drain of a policy at a time) and the members' agent rows (so a route
 * of another policy sharing an agent waits), counts their loads, and records the assignment through
 * the assignment path (recordForOwner) with the decision, its events and the strategy's memory. No
 * two routes can both see an agent below capacity and both assign it.
 */

type Tx = Db.TransactionClient;

export const DECISION_INCLUDE = { policy: { select: { id: true } }, client: { select: { id: true } }, agent: { select: { id: true } } } as const;

type Client = { pk: string; id: string };
type Member = MemberState & { pk: string; absenceEnds: Date | null };

/** A decision's routing event: the decision as its GET shows it, and the reason. */
function routingEvent(type: EventType, d: DecisionWithKeys, scope: Scope, reason: EventReason): NewEvent {
  return { scope, clientPk: d.clientPk, clientId: d.client.id, type, data: { ...routingDecisionView(d), reason } };
}

/** The team's members as routing sees them at `at` (agents that no longer exist are left out), their rows locked. */
async function readMembers(tx: Tx, scope: Scope, team: string, at: Date): Promise<Member[]> {
  const teamRow = await findTeam(tx, scope, team);
  const listed = teamRow ? membersOf(teamRow) : [];
  const agents = new Map((await findAgents(tx, scope, listed.map((m) => m.agent))).map((a) => [a.id, a]));
  const present = listed.filter((m) => agents.has(m.agent));
  const pks = present.map((m) => agents.get(m.agent)!.pk);
  await lockAgents(tx, pks);
  // One after the other: a transaction is one connection.
  const loads = await loadsOf(tx, pks);
  const absences = await absenceEndsAt(tx, pks, at);
  return present.map((m) => {
    const a = agents.get(m.agent)!;
    return {
      pk: a.pk,
      agentId: a.id,
      weight: m.weight,
      presence: a.presence as Presence,
      absent: absences.has(a.pk),
      absenceEnds: absences.get(a.pk) ?? null,
      timezone: a.timezone,
      workingHours: a.workingHours as WorkingHours | null,
      capacity: a.capacity,
      load: loads.get(a.pk) ?? 0,
    };
  });
}

/** An active assignment of the client that routing found and left as it is. */
export interface Holding {
  agentPk: string;
  agentId: string;
  assignmentId: string;
  dtUntil: Date;
}

interface Attempt {
  candidates: Candidate[];
  members: Member[];
  assigned: (RecordedAssignment & { agentPk: string; assignmentId: string; dtUntil: string }) | null;
  /** The eligible member who holds the client already: the answer, nothing assigned. */
  holder?: Holding;
}

/** The client's active assignments (but `leaving`, the one a reroute replaces), oldest first. */
async function holdingsOf(tx: Tx, clientPk: string, leaving?: string): Promise<Holding[]> {
  const rows = await tx.assignment.findMany({
    where: { clientPk, status: 'active', ...(leaving && { id: { not: leaving } }) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, agentPk: true, dtUntil: true, agent: { select: { id: true } } },
  });
  return rows.map((r) => ({ agentPk: r.agentPk, agentId: r.agent.id, assignmentId: r.id, dtUntil: r.dtUntil }));
}

/**
 * The member (first in member order) who holds the client and would be eligible but for the load that
 * this very client adds: a member at capacity because of it still holds it.
 */
function eligibleHolder(candidates: Candidate[], holdings: Holding[]): Holding | undefined {
  for (const c of candidates) {
    const holding = holdings.find((h) => h.agentId === c.agent);
    if (holding && c.reasons.every((r) => r === 'at_capacity')) return holding;
  }
  return undefined;
}

/** Routing never gives a client to an agent who holds it already (that would rewrite the holder's own assignment). */
const withHoldersExcluded = (candidates: Candidate[], holdings: Holding[]): Candidate[] =>
  candidates.map((c) => (holdings.some((h) => h.agentId === c.agent) ? { ...c, eligible: false, reasons: [...c.reasons, 'holds_client'] } : c));

/** What a decision records of the assignment an attempt made: the policy's version, the agent, and why. */
const assignedBy = (policy: PolicyRow, assigned: NonNullable<Attempt['assigned']>, candidates: Candidate[], at: Date) => ({
  version: policy.version,
  agentPk: assigned.agentPk,
  assignmentId: assigned.assignmentId,
  dtUntil: new Date(assigned.dtUntil),
  candidates: candidates as unknown as Db.InputJsonArray,
  decidedAt: at,
});

/**
 * Assesses the members and, when `mayAssign` and one is eligible, assigns the client to the pick (sticky
 * first). A client an eligible member holds already is answered with that holder (`answerHolder`: a
 * route or the queue; a reassignment moves the client on instead); a member holding it otherwise is never
 * picked, so an existing assignment's date is never changed by routing.
 */
async function attempt(
  tx: Tx,
  policy: PolicyRow,
  client: Client,
  at: Date,
  decisionId: string,
  notes: string | null,
  mayAssign: boolean,
  events: NewEvent[],
  reason: 'api' | 'rule',
  reassigning?: { excluded: ReadonlySet<string>; beforeRecord: () => Promise<void>; leaving?: string; answerHolder?: boolean },
): Promise<Attempt> {
  const scope = { business: policy.business, ownerId: policy.ownerId };
  const settings = settingsOf(policy);
  const members = await readMembers(tx, scope, settings.team, at);
  const assessed = assess(members, settings, at, reassigning?.excluded);
  const holdings = await holdingsOf(tx, client.pk, reassigning?.leaving);
  const holder = !reassigning || reassigning.answerHolder ? eligibleHolder(assessed, holdings) : undefined;
  if (holder) return { candidates: assessed, members, assigned: null, holder };
  const candidates = withHoldersExcluded(assessed, holdings);
  if (!mayAssign) return { candidates, members, assigned: null };

  let choice: string | null = null;
  if (settings.sticky && !reassigning) {
    const last = await tx.routingDecision.findFirst({ where: { policyPk: policy.pk, clientPk: client.pk, status: 'assigned' }, orderBy: { decidedAt: 'desc' }, include: { agent: { select: { id: true } } } });
    if (last?.agent && candidates.some((c) => c.agent === last.agent!.id && c.eligible)) choice = last.agent.id;
  }
  if (!choice) {
    const picked = pick(settings.strategy, members, candidates, strategyStateOf(policy));
    if (!picked) return { candidates, members, assigned: null };
    choice = picked.agent;
    await saveStrategyState(tx, policy.pk, picked.state);
  }

  await reassigning?.beforeRecord();
  const dtUntil = settings.assignment_duration ? addIsoDuration(at, settings.assignment_duration).toISOString() : DEFAULT_DT_UNTIL;
  const recorded = await recordForOwner(tx, { business: policy.business, clientId: client.id, agents: [{ agentId: choice, dtUntil }] }, scope, notes, {
    events,
    reason,
    routedBy: { policy: policy.id, version: policy.version, decision_id: decisionId },
  });
  if (recorded.outcome !== 'recorded') throw new Error(`Routing could not record the assignment: ${recorded.outcome}`);
  const agentPk = members.find((m) => m.agentId === choice)!.pk;
  const row = await tx.assignment.findFirstOrThrow({ where: { clientPk: client.pk, agentPk, status: 'active' }, select: { id: true } });
  return { candidates, members, assigned: { ...recorded.assignments[0], agentPk, assignmentId: row.id } };
}

/** Where a waiting decision stands in its policy's queue, 1 the next to be assigned. */
async function positionOf(tx: Tx | Prisma, d: { id: string; policyPk: string; queuedAt: Date | null }): Promise<number> {
  const ahead = await tx.routingDecision.count({
    where: { policyPk: d.policyPk, status: 'queued', OR: [{ queuedAt: { lt: d.queuedAt! } }, { queuedAt: d.queuedAt!, id: { lt: d.id } }] },
  });
  return ahead + 1;
}

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
  client: Client;
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
    const earlier = await tx.routingDecision.findUnique({ where: { business_ownerId_idempotencyKey: { ...scope, idempotencyKey: input.idempotencyKey } }, include: DECISION_INCLUDE });
    if (earlier) return earlier.requestHash === input.requestHash ? again(earlier) : { outcome: 'keyReused' };
  }
  const held = await tx.routingDecision.findFirst({ where: { policyPk: policy.pk, clientPk: input.client.pk, status: 'assigned' }, orderBy: { decidedAt: 'desc' }, include: DECISION_INCLUDE });
  if (held?.assignmentId && held.assignmentId !== input.replacing?.assignmentId && (await tx.assignment.count({ where: { id: held.assignmentId, status: 'active' } })) > 0) return again(held);
  const waiting = await tx.routingDecision.findFirst({ where: { policyPk: policy.pk, clientPk: input.client.pk, status: 'queued' }, include: DECISION_INCLUDE });
  if (waiting) return again(waiting);

  const id = randomUUID();
  const events: NewEvent[] = [];
  // The queue's order is its `queued_at`: taken from the database's clock once the policy's lock is
  // held, and after the newest waiting client's, so it is the order in which the routes committed,
  // whichever process (and whichever clock) made them. A time taken before the lock let a route that
  // waited for it queue ahead of one already answered, and two answers carry the same position.
  const newest = await tx.routingDecision.findFirst({ where: { policyPk: policy.pk, status: 'queued' }, orderBy: { queuedAt: 'desc' }, select: { queuedAt: true } });
  const queueIsEmpty = !newest;
  const at = await timeAfter(tx, newest?.queuedAt ?? null);
  const reason = input.reason ?? 'api';
  const { replacing } = input;
  const tried = await attempt(
    tx,
    policy,
    input.client,
    at,
    id,
    input.notes,
    queueIsEmpty,
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
  const status = tried.assigned ? 'assigned' : holder ? 'already_assigned' : settings.when_none_eligible === 'reject' ? 'rejected' : 'queued';
  const decision = await tx.routingDecision.create({
    data: {
      id,
      ...scope,
      policyPk: policy.pk,
      version: policy.version,
      clientPk: input.client.pk,
      status,
      waitingSlot: status === 'queued' ? true : null,
      agentPk: tried.assigned?.agentPk ?? holder?.agentPk ?? null,
      assignmentId: tried.assigned?.assignmentId ?? holder?.assignmentId ?? null,
      dtUntil: tried.assigned ? new Date(tried.assigned.dtUntil) : (holder?.dtUntil ?? null),
      candidates: tried.candidates as unknown as Db.InputJsonArray,
      notes: input.notes,
      idempotencyKey: input.idempotencyKey,
      requestHash: input.requestHash,
      queuedAt: status === 'queued' ? at : null,
      decidedAt: at,
    },
    include: DECISION_INCLUDE,
  });
  // A client found already held changed nothing: no event (the assignment made its own when it was made).
  const type: EventType | null = status === 'assigned' ? 'routing.assigned' : status === 'queued' ? 'routing.queued' : status === 'rejected' ? 'routing.no_eligible_agent' : null;
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

/** The database's clock now, and at least a millisecond (the column's precision) after `after`. */
async function timeAfter(tx: Tx, after: Date | null): Promise<Date> {
  const [{ now }] = await tx.$queryRaw<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
  return after && now.getTime() <= after.getTime() ? new Date(after.getTime() + 1) : now;
}

async function standing(tx: Tx, decision: DecisionWithKeys): Promise<RouteOutcome> {
  const position = decision.status === 'queued' ? await positionOf(tx, decision) : null;
  return { outcome: 'decided', decision, position, assigned: null, repeated: true, firstResponse: false, otherHolders: await otherHoldersOf(tx, decision) };
}

export type DrainStep =
  | { outcome: 'assigned'; assigned: RecordedAssignment; business: string; clientId: string; decisionId: string; firstResponse: boolean }
  | { outcome: 'alreadyAssigned'; business: string; clientId: string }
  | { outcome: 'none'; waiting: number; oldestSince: Date | null; nextChangeAt: Date | null }
  | { outcome: 'gone' };

/**
 * Assigns the oldest client waiting in the policy's queue, if anyone is eligible now; otherwise says how
 * many wait and when the clock alone may free someone. One transaction, under the policy's lock.
 */
export async function assignOldestWaiting(tx: Tx, record: RecordEvent, policyPk: string, at: Date): Promise<DrainStep> {
  const policy = await lockPolicy(tx, policyPk);
  if (!policy) return { outcome: 'gone' };
  const scope = { business: policy.business, ownerId: policy.ownerId };
  const oldest = await tx.routingDecision.findFirst({ where: { policyPk, status: 'queued' }, orderBy: [{ queuedAt: 'asc' }, { id: 'asc' }], include: DECISION_INCLUDE });
  if (!oldest) return { outcome: 'none', waiting: 0, oldestSince: null, nextChangeAt: null };
  const events: NewEvent[] = [];
  const tried = await attempt(tx, policy, { pk: oldest.clientPk, id: oldest.client.id }, at, oldest.id, oldest.notes, true, events, 'rule');
  if (tried.holder) {
    // Assigned to a member by hand (or by another policy) while it waited: it leaves the queue with that holder.
    const { agentPk, assignmentId, dtUntil } = tried.holder;
    await tx.routingDecision.update({
      where: { id: oldest.id },
      data: { status: 'already_assigned', waitingSlot: null, version: policy.version, agentPk, assignmentId, dtUntil, candidates: tried.candidates as unknown as Db.InputJsonArray, decidedAt: at },
    });
    return { outcome: 'alreadyAssigned', business: policy.business, clientId: oldest.client.id };
  }
  if (!tried.assigned) {
    await tx.routingDecision.update({ where: { id: oldest.id }, data: { candidates: tried.candidates as unknown as Db.InputJsonArray } });
    const waiting = await tx.routingDecision.count({ where: { policyPk, status: 'queued' } });
    return { outcome: 'none', waiting, oldestSince: oldest.queuedAt, nextChangeAt: nextEligibilityChange(tried.members, settingsOf(policy).working_hours, at) };
  }
  const decision = await tx.routingDecision.update({
    where: { id: oldest.id },
    data: { status: 'assigned', waitingSlot: null, ...assignedBy(policy, tried.assigned, tried.candidates, at) },
    include: DECISION_INCLUDE,
  });
  events.push(routingEvent('routing.assigned', decision, scope, 'rule'));
  for (const event of events) await record(event);
  return { outcome: 'assigned', assigned: tried.assigned, business: policy.business, clientId: oldest.client.id, decisionId: decision.id, firstResponse: !!settingsOf(policy).first_response_within };
}

/** The decision a route request with this Idempotency-Key made for the user, or null. */
export function findDecisionByKey(prisma: Prisma, scope: Scope, idempotencyKey: string) {
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

export type FirstResponseOutcome =
  | { state: 'waiting'; dueAt: Date | null; reassignments: number }
  | { state: 'reassigned'; reassignments: number; assigned: RecordedAssignment; endedWorkflowId: string; clientId: string; policy: { business: string; ownerId: string; pk: string; id: string } }
  | { state: 'done'; outcome: 'answered' | 'escalated' | 'ended' };

/**
 * One look at a decision's first-response clock, under its policy's lock. The clock starts when the
 * current owner got the client (`decided_at`) and, when the policy checks working hours, runs only
 * inside the owner's. Once it is out and nobody answered: the assignment ends (`ended_by` routing) and
 * the client goes to an eligible member who has not held it under this decision, while reassignments
 * are left; otherwise the owner keeps it and the decision is escalated. The policy's current settings
 * apply (a policy that dropped the clock stops it).
 */
export async function firstResponseStep(tx: Tx, record: RecordEvent, decisionId: string, at: Date): Promise<FirstResponseOutcome> {
  const first = await tx.routingDecision.findUnique({ where: { id: decisionId }, select: { policyPk: true } });
  const policy = first && (await lockPolicy(tx, first.policyPk));
  if (!policy) return { state: 'done', outcome: 'ended' };
  const d = await tx.routingDecision.findUniqueOrThrow({ where: { id: decisionId }, include: { ...DECISION_INCLUDE, agent: { select: { id: true, timezone: true, workingHours: true } } } });
  if (d.answeredAt) return { state: 'done', outcome: 'answered' };
  if (d.escalatedAt) return { state: 'done', outcome: 'escalated' };
  const settings = settingsOf(policy);
  const active = d.status === 'assigned' && d.assignmentId && d.agent ? await tx.assignment.findFirst({ where: { id: d.assignmentId, status: 'active' }, select: { workflowId: true } }) : null;
  if (!active || !d.agent || !d.agentPk || !settings.first_response_within) return { state: 'done', outcome: 'ended' };

  const withinMs = addIsoDuration(d.decidedAt, settings.first_response_within).getTime() - d.decidedAt.getTime();
  const dueAt = settings.working_hours ? addWorkingTime(d.agent.workingHours as WorkingHours | null, d.agent.timezone, d.decidedAt, withinMs) : new Date(d.decidedAt.getTime() + withinMs);
  if (!dueAt || at < dueAt) return { state: 'waiting', dueAt, reassignments: d.reassignments };

  const scope = { business: policy.business, ownerId: policy.ownerId };
  const events: NewEvent[] = [];
  const heldPks = [...d.heldBy, d.agentPk];
  const tried =
    d.reassignments < (settings.max_reassignments ?? 0)
      ? await attempt(tx, policy, { pk: d.clientPk, id: d.client.id }, at, d.id, d.notes, true, events, 'rule', {
          excluded: new Set((await tx.agent.findMany({ where: { pk: { in: heldPks } }, select: { id: true } })).map((a) => a.id)),
          beforeRecord: async () => void (await endActiveIn(tx, { id: d.assignmentId! }, 'routing', at, events)),
          leaving: d.assignmentId!,
        })
      : null;
  if (!tried?.assigned) {
    const escalated = await tx.routingDecision.update({
      where: { id: d.id },
      data: { escalatedAt: at, ...(tried && { candidates: tried.candidates as unknown as Db.InputJsonArray }) },
      include: DECISION_INCLUDE,
    });
    await record(routingEvent('routing.escalated', escalated, scope, 'rule'));
    return { state: 'done', outcome: 'escalated' };
  }
  const decision = await tx.routingDecision.update({
    where: { id: d.id },
    data: {
      ...assignedBy(policy, tried.assigned, tried.candidates, at),
      reassignments: { increment: 1 },
      heldBy: heldPks,
    },
    include: DECISION_INCLUDE,
  });
  events.push({ ...routingEvent('routing.reassigned', decision, scope, 'rule'), data: { ...routingDecisionView(decision), reason: 'rule', previous_agent: d.agent.id } });
  for (const event of events) await record(event);
  return { state: 'reassigned', reassignments: decision.reassignments, assigned: tried.assigned, endedWorkflowId: active.workflowId, clientId: d.client.id, policy: { business: policy.business, ownerId: policy.ownerId, pk: policy.pk, id: policy.id } };
}

/**
 * The current owner answered: the decisions that gave it this client, whose clock runs, stop it.
 * `decisionId` narrows to one decision (accept). Returns the decisions answered now.
 */
export function markAnswered(prisma: Prisma | Tx, where: { clientPk: string; agentPk: string } | { id: string; agentPk?: undefined }, at: Date) {
  return prisma.routingDecision.updateManyAndReturn({ where: { ...where, status: 'assigned', answeredAt: null }, data: { answeredAt: at }, select: { id: true, business: true } });
}

/**
 * A text from the owner's client came in: when the client holds no active assignment and the owner has
 * a policy routing unowned replies, the client is routed by it, in the caller's transaction (the
 * inbound text's), so the `message.received` recorded after names the new owner. Null when not routed.
 */
export async function routeUnownedReply(tx: Tx, record: RecordEvent, client: { business: string; ownerId: string; clientPk: string }, at: Date) {
  const policy = await unownedRepliesPolicy(tx, { business: client.business, ownerId: client.ownerId });
  if (!policy) return null;
  if ((await tx.assignment.count({ where: { clientPk: client.clientPk, status: 'active' } })) > 0) return null;
  const row = await tx.client.findUnique({ where: { pk: client.clientPk }, select: { id: true } });
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

/**
 * The reconciler's page of decisions whose first-response clock may be missing: assigned, not answered,
 * not escalated, under a policy with `first_response_within`, unchanged since `before`.
 */
export function unansweredDecisionsBefore(prisma: Prisma, filter: { before: Date; business?: string }, afterId: string | undefined, take: number) {
  return prisma.routingDecision.findMany({
    where: {
      status: 'assigned',
      answeredAt: null,
      escalatedAt: null,
      updatedAt: { lt: filter.before },
      ...(filter.business && { business: filter.business }),
      ...(afterId && { id: { gt: afterId } }),
      policy: { settings: { path: ['first_response_within'], string_starts_with: 'P' } },
    },
    select: { id: true, business: true },
    orderBy: { id: 'asc' },
    take,
  });
}
