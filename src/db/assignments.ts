import { Prisma as Db } from '../generated/prisma/client';
import {
  type AssignAgentsInput,
  type AssignmentStatus,
  type ExpiryCheck,
  type RecordAssignmentsInput,
  type RecordedAssignment,
  clientWorkflowId,
} from '../domain';
import {
  type RoutedBy,
  assignmentReason,
  assignmentStep,
  replacedWorkflowId,
  replayed,
  requestStatement,
  unauthorizedAgent,
} from '../domain/assignment-changes';
import { lockAssignRequest, settleAssignRequest } from './assign-requests';
import { holdingAt } from './assignment-holds';
import { isStorableDate, RefusedDataError } from './errors';
import { ASSIGNMENT_EVENT_INCLUDE, assignmentEvent, withEvents, type NewEvent } from './events';
import type { Prisma } from './prisma';
import type { ReconcilerFilter } from './reconciler-filter';
import type { Scope } from './scope';

/*
 * Every change of an assignment row: created or re-assigned (active), expired, unassigned. At most one
 * row per (client, agent) is active — `active_slot` is true while active and NULL afterwards, under a
 * unique index — and each transition is a compare-and-set on `status = 'active'`. Each transition
 * records its event (assignment.created, updated, expired, unassigned) in its own transaction.
 */

export type Pair = { clientPk: string; agentPk: string };

type Tx = Db.TransactionClient;

export type RecordOutcome =
  | { outcome: 'recorded'; assignments: RecordedAssignment[] }
  | { outcome: 'clientNotFound' }
  | { outcome: 'agentNotAuthorized'; agentId: string }
  | { outcome: 'requestExpired' }
  /** The API gave up waiting and answered 503 before the run got to it (withdrawAssignRequest): nothing is recorded. */
  | { outcome: 'withdrawn' };

/**
 * Checks that the client and every agent are the owner's, then records all assignments or none. The
 * owner and the notes come from the request's `assign_requests` row, settled in the same transaction;
 * a settled row gives back its outcome, so running this again changes nothing.
 */
export function recordAssignments(prisma: Prisma, input: RecordAssignmentsInput): Promise<RecordOutcome> {
  return withEvents(prisma, async (tx, record) => {
    const request = await lockAssignRequest(tx, input.requestKey);
    const statement = requestStatement(request);
    if (statement.kind === 'replay') return replayed(statement.outcome as RecordOutcome);
    if (statement.kind === 'expired') return { outcome: 'requestExpired' };
    const events: NewEvent[] = [];
    const outcome = await recordForOwner(tx, input, statement.scope, statement.notes, { events });
    if (request.state === 'pending') await settleAssignRequest(tx, input.requestKey, outcome);
    // Last, once every row it changes is locked (see withEvents).
    for (const event of events) await record(event);
    return outcome;
  });
}

/** Who states the assignments — a request (the default), or the client's rotation handing out a period — and where their events go. */
export interface RecordOptions {
  rotation?: boolean;
  /** Lead routing's decision that made it (`routed_by` in its view); any other request clears it. */
  routedBy?: RoutedBy;
  /** The events' reason, when not the default (`api`, or `rule` for a rotation). */
  reason?: 'api' | 'rule';
  /** Collects the events of the changes, for the caller to record once its last row is changed (see withEvents). */
  events: NewEvent[];
}

/**
 * The one path every assignment is recorded through, inside the caller's transaction: assign-agents'
 * requests and each period of a rotation. What each pair's row becomes, and its event, is the rule of
 * src/domain/assignment-changes.ts (a rotation never shortens an assignment); each event goes to
 * `options.events`.
 */
export async function recordForOwner(tx: Tx, input: AssignAgentsInput, owner: Scope, notes: string | null, options: RecordOptions): Promise<RecordOutcome> {
  const client = await tx.client.findUnique({ where: { business_ownerId_id_liveSlot: { ...owner, id: input.clientId, liveSlot: true } } });
  if (!client) return { outcome: 'clientNotFound' };
  const agents = await tx.agent.findMany({ where: { ...owner, liveSlot: true, id: { in: input.agents.map((a) => a.agentId) } } });
  const agentPks = new Map(agents.map((a) => [a.id, a.pk]));
  const unauthorized = unauthorizedAgent(input.agents, new Set(agentPks.keys()));
  if (unauthorized !== undefined) return { outcome: 'agentNotAuthorized', agentId: unauthorized };

  const assignments: RecordedAssignment[] = [];
  const { events } = options;
  const reason = assignmentReason(options);
  const routedBy = options.routedBy ? (options.routedBy as Db.InputJsonObject) : Db.DbNull;
  // What an event names besides the row, known already: no read back with the write.
  const clientKeys = { id: client.id, business: client.business, ownerId: client.ownerId };
  for (const { agentId, dtUntil } of input.agents) {
    const agentPk = agentPks.get(agentId)!;
    const keys = { agent: { id: agentId }, client: clientKeys };
    const active = await tx.assignment.findFirst({ where: { clientPk: client.pk, agentPk, status: 'active' } });
    const stated = { dtUntil: new Date(dtUntil), notes, rotation: options.rotation ?? false, routedBy: options.routedBy ?? null };
    // 22008, datetime field overflow: what such a date would be once read back.
    if (!isStorableDate(stated.dtUntil)) throw new RefusedDataError('A dt_until is outside the years 0001-9999', '22008');
    const workflowId = clientWorkflowId({ business: input.business, clientId: input.clientId, clientPk: client.pk });
    const replaced = replacedWorkflowId(active, workflowId);
    const step = assignmentStep(active, stated);
    const data = { dtUntil: stated.dtUntil, notes, rotation: stated.rotation, routedBy };
    if (step.action === 'keep') {
      if (replaced) await tx.assignment.update({ where: { id: active!.id }, data: { workflowId } });
    } else if (step.action === 'restate') {
      const updated = await tx.assignment.update({ where: { id: active!.id }, data: { ...data, workflowId, revision: { increment: 1 } } });
      if (step.event) events.push(assignmentEvent(step.event, { ...updated, ...keys }, reason));
    } else {
      const created = await tx.assignment.create({ data: { ...data, workflowId, clientPk: client.pk, agentPk } });
      events.push(assignmentEvent(step.event, { ...created, ...keys }, reason));
    }
    assignments.push({
      agentId,
      dtUntil: step.dtUntil.toISOString(),
      workflowId,
      ...(replaced && { replacedWorkflowId: replaced }),
      expiry: { business: input.business, clientId: input.clientId, agentId, clientPk: client.pk, agentPk, dtUntil: step.dtUntil.toISOString() },
    });
  }
  return { outcome: 'recorded', assignments };
}

/** The pair's active assignment. */
async function findActiveAssignment(prisma: Prisma, pair: Pair): Promise<{ dtUntil: string } | null> {
  const active = await prisma.assignment.findFirst({ where: { ...pair, status: 'active' }, select: { dtUntil: true } });
  return active && { dtUntil: active.dtUntil.toISOString() };
}

/**
 * Ends the rotation's period in progress early, at `to`, when a replacement applies now: only the
 * assignment the rotation made for that period (still active, still `rotation`, still ending at
 * `from`), so one changed by hand since is left alone. Returns its expiry workflow's id, to wake it.
 */
export async function cutRotationAssignment(tx: Tx, at: Pair & { from: Date; to: Date }, events: NewEvent[]): Promise<string | null> {
  const row = await tx.assignment.findFirst({
    where: { clientPk: at.clientPk, agentPk: at.agentPk, status: 'active', rotation: true, dtUntil: at.from },
    select: { id: true, workflowId: true },
  });
  if (!row) return null;
  const cut = await tx.assignment.update({ where: { id: row.id }, data: { dtUntil: at.to, revision: { increment: 1 } }, include: ASSIGNMENT_EVENT_INCLUDE });
  events.push(assignmentEvent('assignment.updated', cut, 'rule'));
  return row.workflowId;
}

/** active → expired, only if its date has come; otherwise says what is there. */
export async function expireAssignmentIfDue(prisma: Prisma, pair: Pair, now = new Date()): Promise<ExpiryCheck> {
  const expired = await withEvents(prisma, async (tx, record) => {
    const rows = await tx.assignment.updateManyAndReturn({
      where: { ...pair, status: 'active', dtUntil: { lte: now } },
      data: { status: 'expired', activeSlot: null, endedAt: now },
      include: ASSIGNMENT_EVENT_INCLUDE,
    });
    for (const row of rows) await record(assignmentEvent('assignment.expired', row, 'expiry'));
    return rows.length > 0;
  });
  if (expired) return { status: 'expired' };
  const active = await findActiveAssignment(prisma, pair);
  return active ? { status: 'active', dtUntil: active.dtUntil } : { status: 'none' };
}

/** active → unassigned for the owner's agent on this client; null when no such assignment was active. */
export async function unassignAgent(prisma: Prisma, scope: Scope, clientPk: string, agentId: string, now = new Date()) {
  const active = await prisma.assignment.findFirst({ where: { clientPk, status: 'active', agent: { id: agentId, ...scope } } });
  if (!active) return null;
  const ended = await endActive(prisma, { id: active.id }, 'api', now);
  return ended.length > 0 ? { ...active, status: 'unassigned' as const, endedAt: now } : null;
}

/** active → unassigned for the active rows `where` selects, each with its `assignment.unassigned` event. */
function endActive(prisma: Prisma, where: { id: string }, by: 'api', now: Date) {
  return withEvents(prisma, async (tx, record) => {
    const events: NewEvent[] = [];
    const rows = await endActiveIn(tx, where, by, now, events);
    for (const event of events) await record(event);
    return rows;
  });
}

/** Who ends an assignment before its date. */
export type EndedBy = 'api' | 'operator' | 'client_deleted' | 'agent_deleted' | 'routing';

/**
 * active → unassigned, inside the caller's transaction, for the active rows `where` selects (one
 * client's or one agent's); their `assignment.unassigned` events go to `events`, to be recorded last.
 */
export async function endActiveIn(tx: Tx, where: Pair | { id: string } | { clientPk: string } | { agentPk: string }, by: EndedBy, now: Date, events: NewEvent[]) {
  const rows = await tx.assignment.updateManyAndReturn({
    where: { ...where, status: 'active' },
    data: { status: 'unassigned', activeSlot: null, endedAt: now, endedBy: by },
    include: ASSIGNMENT_EVENT_INCLUDE,
  });
  // UPDATE … RETURNING gives rows in scan order: the events follow the assignments' own order instead.
  rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  for (const row of rows) events.push(assignmentEvent('assignment.unassigned', row, by));
  return rows;
}

/** An erased client's assignments keep their agents, dates and statuses, not their notes. */
export async function eraseClientAssignmentNotes(tx: Tx, clientPk: string): Promise<void> {
  await tx.assignment.updateMany({ where: { clientPk, notes: { not: null } }, data: { notes: null } });
}

/**
 * An erased CRM lead's ended assignments keep no workflow id naming its record (`erased/<id>`): their
 * runs are found by client and agent, and are woken with the ids read before.
 */
export async function eraseClientWorkflowIds(tx: Tx, clientPk: string): Promise<void> {
  await tx.$executeRaw`UPDATE assignments SET workflow_id = 'erased/' || id::text WHERE client_pk = ${clientPk}::uuid AND status <> 'active'`;
}

/** The position after the last item of an agent's clients page: by assignment, oldest first. */
export type HeldCursor = { createdAt: Date; id: string };

/** The clients the agent holds at `now`: its active assignments whose `dt_until` is ahead, oldest first. */
export function listHeldClients(prisma: Prisma, agentPk: string, now: Date, after: HeldCursor | undefined, take: number) {
  return prisma.assignment.findMany({
    where: {
      agentPk,
      ...holdingAt(now),
      client: { liveSlot: true },
      ...(after && { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }),
    },
    include: { client: { select: { id: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take,
  });
}

/**
 * Active assignments unchanged since `before` (and changed since `since`, of one business, of these
 * workflow ids, when given), by id after `afterId`: what the reconciler checks.
 */
export function activeAssignmentsChangedBefore(prisma: Prisma, filter: ReconcilerFilter, afterId: string | undefined, take: number) {
  return prisma.assignment.findMany({
    where: {
      status: 'active',
      updatedAt: { lt: filter.before, ...(filter.since && { gte: filter.since }) },
      ...(filter.business && { client: { business: filter.business } }),
      ...(filter.workflowIds && { workflowId: { in: filter.workflowIds } }),
      ...(afterId && { id: { gt: afterId } }),
    },
    select: {
      id: true,
      workflowId: true,
      dtUntil: true,
      clientPk: true,
      agentPk: true,
      client: { select: { id: true, business: true } },
      agent: { select: { id: true } },
    },
    orderBy: { id: 'asc' },
    take,
  });
}

export function listClientAssignments(prisma: Prisma, clientPk: string, statuses: readonly AssignmentStatus[]) {
  return prisma.assignment.findMany({
    where: { clientPk, status: { in: [...statuses] } },
    include: { agent: { select: { id: true } } },
    orderBy: [{ createdAt: 'asc' }],
  });
}

export function countActiveAssignments(prisma: Prisma): Promise<number> {
  return prisma.assignment.count({ where: { status: 'active' } });
}
