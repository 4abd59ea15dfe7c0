import { Prisma as Db, type Rotation } from '../generated/prisma/client';
import type { AssignmentExpiryInput, EventReason, EventType, RotationStep } from '../domain';
import { cutRotationAssignment, recordForOwner } from './assignments';
import { withEvents, type NewEvent } from './events';
import type { Prisma } from './prisma';
import { currentOf, pendingJson, pendingOf, scheduleOf, skippedOf, type CurrentPeriod, type SkippedPeriod } from '../domain/rotation-row';
import { nextChange, periodStartAt, takeOverAt, type Schedule, type Segment } from '../domain/rotation-schedule';
import type { Scope } from './scope';
import { rotationView } from '../views/rotation';

/*
 * Every change of a `rotations` row: set or replaced (PUT), stopped (DELETE, or an operator canceling
 * its workflow), and advanced by its workflow at each boundary, which hands the period out through
 * the same recording path as assign-agents. Each runs in a transaction holding the row (or, for the
 * first PUT, the client) locked, so a PUT racing a boundary is applied before or after it, never half.
 */

type Tx = Db.TransactionClient;

/** A PUT's content, checked by the API. */
export interface RotationRequestData {
  agentIds: string[];
  period: string;
  periodMs: number;
  startsAt: Date | null;
  notes: string | null;
  applyNow: boolean;
}

const MAX_SKIPPED = 50;

export type RotationWithClient = Rotation & { client: { id: string } };

const scheduleColumns = (s: Schedule) => ({
  agentIds: s.agentIds,
  period: s.period,
  periodMs: BigInt(s.periodMs),
  startsAt: s.startsAt,
  effectiveAt: s.effectiveAt,
  notes: s.notes,
});

const jsonOrNull = (value: object | null) => (value === null ? Db.DbNull : (value as Db.InputJsonObject));

/** The user's rotation of the client, stopped or not; null when there never was one. */
export function findRotation(prisma: Prisma, clientPk: string, ownerId: string): Promise<RotationWithClient | null> {
  return prisma.rotation.findUnique({ where: { clientPk_ownerId: { clientPk, ownerId } }, include: { client: { select: { id: true } } } });
}

export type PutRotationOutcome =
  | { outcome: 'clientNotFound' }
  | { outcome: 'agentNotAuthorized'; agentId: string }
  | { outcome: 'stored'; created: boolean; changed: boolean; rotation: RotationWithClient; cutWorkflowId: string | null };

/**
 * Sets the rotation (created) or replaces it. A replacement takes over at the end of the period in
 * progress, or now with `applyNow` (the period in progress is cut short there), never before its own
 * `startsAt`; when that is later than the period in progress, the rotation in force goes on until then.
 * A PUT that states the rotation already in force changes nothing, so repeating one is safe.
 */
export function putRotation(prisma: Prisma, scope: Scope, clientId: string, request: RotationRequestData, now = new Date()): Promise<PutRotationOutcome> {
  return withEvents(prisma, async (tx, record) => {
    const client = await tx.client.findUnique({ where: { business_ownerId_id_liveSlot: { ...scope, id: clientId, liveSlot: true } } });
    if (!client) return { outcome: 'clientNotFound' };
    const owned = new Set((await tx.agent.findMany({ where: { ...scope, liveSlot: true, id: { in: request.agentIds } }, select: { id: true } })).map((a) => a.id));
    const missing = request.agentIds.find((id) => !owned.has(id));
    if (missing !== undefined) return { outcome: 'agentNotAuthorized', agentId: missing };

    // Two first PUTs on one client must not both insert: the client row orders them.
    await tx.$queryRaw`SELECT pk FROM clients WHERE pk = ${client.pk}::uuid FOR NO KEY UPDATE`;
    const existing = await tx.rotation.findUnique({ where: { clientPk_ownerId: { clientPk: client.pk, ownerId: scope.ownerId } } });
    const include = { client: { select: { id: true } } };

    const effectiveAt = takeOverAt({ now, periodInProgressUntil: existing?.coveredUntil ?? null, applyNow: request.applyNow, startsAt: request.startsAt });
    const schedule: Schedule = {
      agentIds: request.agentIds,
      period: request.period,
      periodMs: request.periodMs,
      startsAt: request.startsAt ?? effectiveAt,
      effectiveAt,
      notes: request.notes,
    };
    if (!existing) {
      const rotation = await tx.rotation.create({ data: { clientPk: client.pk, ...scope, ...scheduleColumns(schedule) }, include });
      return { outcome: 'stored', created: true, changed: true, rotation, cutWorkflowId: null };
    }
    if (statesRotationInForce(existing, request)) {
      const rotation = await tx.rotation.findUniqueOrThrow({ where: { key: existing.key }, include });
      return { outcome: 'stored', created: false, changed: false, rotation, cutWorkflowId: null };
    }

    let coveredUntil = existing.coveredUntil;
    let current = currentOf(existing);
    let cutWorkflowId: string | null = null;
    const events: NewEvent[] = [];
    const inProgress = coveredUntil !== null && coveredUntil > now;
    if (inProgress && effectiveAt < coveredUntil!) {
      if (current) {
        cutWorkflowId = await cutRotationAssignment(tx, { clientPk: client.pk, agentPk: current.agentPk, from: coveredUntil!, to: effectiveAt }, events);
        current = { ...current, expiry: { ...current.expiry, dtUntil: effectiveAt.toISOString() } };
      }
      coveredUntil = effectiveAt;
    }
    // The rotation in force covers the time until a later start; a stopped one does not come back for it.
    const keepInForce = existing.status === 'active' && inProgress && effectiveAt > coveredUntil!;
    const rotation = await tx.rotation.update({
      where: { key: existing.key },
      data: {
        ...(keepInForce ? { pending: pendingJson(schedule) } : { ...scheduleColumns(schedule), pending: Db.DbNull }),
        status: 'active',
        version: { increment: 1 },
        coveredUntil,
        current: jsonOrNull(current),
        stoppedAt: null,
        stoppedBy: null,
      },
      include,
    });
    // Last, once every row it changes is locked (see withEvents).
    for (const event of events) await record(event);
    return { outcome: 'stored', created: false, changed: true, rotation, cutWorkflowId };
  });
}

function statesRotationInForce(existing: Rotation, request: RotationRequestData): boolean {
  return (
    existing.status === 'active' &&
    existing.pending === null &&
    !request.applyNow &&
    request.startsAt === null &&
    Number(existing.periodMs) === request.periodMs &&
    existing.notes === request.notes &&
    existing.agentIds.length === request.agentIds.length &&
    existing.agentIds.every((id, i) => id === request.agentIds[i])
  );
}

export type StopRotationOutcome = { outcome: 'clientNotFound' } | { outcome: 'notActive' } | { outcome: 'stopped'; rotation: RotationWithClient };

/** A rotation event: the rotation as `GET /clients/{_id}/rotation` shows it after the change, and the reason. */
function rotationEvent(type: EventType, row: RotationWithClient, reason: EventReason): NewEvent {
  return {
    scope: { business: row.business, ownerId: row.ownerId },
    clientPk: row.clientPk,
    clientId: row.client.id,
    type,
    data: { ...rotationView(row), reason },
  };
}

/** active → stopped: no further period is handed out; the one in progress runs to its end. Records `rotation.stopped`. */
export function stopRotation(prisma: Prisma, scope: Scope, clientId: string, now = new Date()): Promise<StopRotationOutcome> {
  return withEvents(prisma, async (tx, record) => {
    const client = await tx.client.findUnique({ where: { business_ownerId_id_liveSlot: { ...scope, id: clientId, liveSlot: true } } });
    if (!client) return { outcome: 'clientNotFound' };
    const stopped = await tx.rotation.updateMany({
      where: { clientPk: client.pk, ownerId: scope.ownerId, status: 'active' },
      data: { status: 'stopped', pending: Db.DbNull, version: { increment: 1 }, stoppedAt: now, stoppedBy: 'api' },
    });
    if (stopped.count === 0) return { outcome: 'notActive' };
    const rotation = await tx.rotation.findUniqueOrThrow({
      where: { clientPk_ownerId: { clientPk: client.pk, ownerId: scope.ownerId } },
      include: { client: { select: { id: true } } },
    });
    await record(rotationEvent('rotation.stopped', rotation, 'api'));
    return { outcome: 'stopped', rotation };
  });
}

/** active → stopped by an operator who canceled the rotation's workflow, with its `rotation.stopped`; false when it was not active. */
export function stopRotationByOperator(prisma: Prisma, rotationKey: string, now = new Date()): Promise<boolean> {
  return withEvents(prisma, async (tx, record) => {
    const stopped = await tx.rotation.updateManyAndReturn({
      where: { key: rotationKey, status: 'active' },
      data: { status: 'stopped', pending: Db.DbNull, version: { increment: 1 }, stoppedAt: now, stoppedBy: 'operator' },
      include: { client: { select: { id: true } } },
    });
    for (const rotation of stopped) await record(rotationEvent('rotation.stopped', rotation, 'operator'));
    return stopped.length > 0;
  });
}

/**
 * active → stopped for the rotation of a client being erased, inside the caller's transaction (which
 * holds the client); every rotation row of the client loses its notes. The `rotation.stopped` events
 * go to `events`; the stopped rows are returned, to wake their workflows.
 */
export async function stopClientRotations(tx: Tx, clientPk: string, now: Date, events: NewEvent[]): Promise<RotationWithClient[]> {
  const stopped = await tx.rotation.updateManyAndReturn({
    where: { clientPk, status: 'active' },
    data: { status: 'stopped', pending: Db.DbNull, notes: null, version: { increment: 1 }, stoppedAt: now, stoppedBy: 'client_deleted' },
    include: { client: { select: { id: true } } },
  });
  await tx.rotation.updateMany({ where: { clientPk }, data: { notes: null, pending: Db.DbNull } });
  for (const rotation of stopped) events.push(rotationEvent('rotation.stopped', rotation, 'client_deleted'));
  return stopped;
}

/**
 * Takes a deleted agent out of the owner's active rotations, inside the caller's transaction: each goes
 * on with the others, counted from the same `starts_at`. When the agent held the period in progress,
 * the rest of it is handed out again at once (to whoever the shortened list gives it). A rotation left
 * with no agent is stopped (`rotation.stopped`, reason `agent_deleted`); a replacement waiting for its
 * time loses the agent too, and is dropped when that leaves it empty. Returns the rotations changed,
 * to wake their workflows.
 */
export async function dropAgentFromRotations(tx: Tx, scope: Scope, agent: { id: string; pk: string }, now: Date, events: NewEvent[]): Promise<RotationWithClient[]> {
  const keys = await tx.$queryRaw<{ key: string }[]>`
    SELECT key FROM rotations
     WHERE business = ${scope.business} AND owner_id = ${scope.ownerId} AND status = 'active'
       AND (${agent.id} = ANY(agent_ids) OR (pending IS NOT NULL AND pending -> 'agentIds' ? ${agent.id}))
     ORDER BY key
       FOR UPDATE`;
  const changed: RotationWithClient[] = [];
  for (const { key } of keys) {
    const row = await tx.rotation.findUniqueOrThrow({ where: { key }, include: { client: { select: { id: true } } } });
    const agentIds = row.agentIds.filter((id) => id !== agent.id);
    const pending = pendingOf(row);
    const pendingIds = pending?.agentIds.filter((id) => id !== agent.id) ?? [];
    const current = currentOf(row);
    const heldNow = current !== null && current.agentPk === agent.pk && row.coveredUntil !== null && row.coveredUntil > now;
    const data: Db.RotationUpdateInput =
      agentIds.length === 0
        ? { status: 'stopped', pending: Db.DbNull, stoppedAt: now, stoppedBy: 'agent_deleted' }
        : {
            agentIds,
            pending: pending && pendingIds.length > 0 ? pendingJson({ ...pending, agentIds: pendingIds }) : Db.DbNull,
            ...(heldNow && { current: Db.DbNull, coveredUntil: now }),
          };
    const updated = await tx.rotation.update({ where: { key }, data: { ...data, version: { increment: 1 } }, include: { client: { select: { id: true } } } });
    if (updated.status === 'stopped') events.push(rotationEvent('rotation.stopped', updated, 'agent_deleted'));
    changed.push(updated);
  }
  return changed;
}

/** A step's outcome: what the workflow is told, and the expiry workflow of the period in progress to start or wake. */
export interface AdvanceOutcome {
  step: RotationStep;
  wake: { workflowId: string; expiry: AssignmentExpiryInput } | null;
}

const ENDED: RotationStep = { state: 'ended', version: 0, nextChangeAt: null, current: null, next: null };

/** What a step knows of the clocks, so a period it cannot hand out any more is recorded for what happened. */
export interface StepClock {
  /** When the rotation's workflow task ran (the workflow's clock); the step may run later. */
  asOf?: Date;
  /** Since when the worker running the step has been up. */
  workerSince?: Date;
}

/**
 * Hands out every period that is due at `now`, in schedule order: the period's agent, or when that
 * agent was deleted or is no longer the owner's, the next one in the list who can take it (the reason
 * is kept in `skipped`). Periods that ended before the step could run are not handed out after the
 * fact (`skipped` says whether no worker ran or the step waited); the one in progress is, from its
 * scheduled start. Running it again at the same time changes nothing.
 */
export function advanceRotation(prisma: Prisma, rotationKey: string, now = new Date(), clock: StepClock = {}): Promise<AdvanceOutcome> {
  return withEvents(prisma, async (tx, record) => {
    const row = await lockRotation(tx, rotationKey);
    if (!row) return { step: ENDED, wake: null };
    const { outcome, events } = await advanceLocked(tx, row, now, clock);
    // Last, once every row it changes is locked (see withEvents).
    for (const event of events) await record(event);
    return outcome;
  });
}

async function lockRotation(tx: Tx, rotationKey: string): Promise<RotationWithClient | null> {
  await tx.$queryRaw`SELECT key FROM rotations WHERE key = ${rotationKey}::uuid FOR UPDATE`;
  return tx.rotation.findUnique({ where: { key: rotationKey }, include: { client: { select: { id: true } } } });
}

/**
 * The expiry of the assignment whose rotation period ends at `now` (or just before): when the rotation
 * gives the period that starts there to the same agent, the period is handed out here, first, so the
 * assignment is extended (one `assignment.updated`) rather than expired and created again. Null when
 * there is nothing to extend; the expiry then goes on as usual. The rotation's own step at the same
 * boundary, before or after, finds the period handed out.
 */
export async function extendIntoNextPeriod(prisma: Prisma, pair: { clientPk: string; agentPk: string }, now = new Date()): Promise<AdvanceOutcome | null> {
  const candidates = await prisma.rotation.findMany({
    where: { clientPk: pair.clientPk, status: 'active', coveredUntil: { lte: now }, current: { path: ['agentPk'], equals: pair.agentPk } },
    select: { key: true },
  });
  for (const { key } of candidates) {
    const extended = await withEvents(prisma, async (tx, record) => {
      const row = await lockRotation(tx, key);
      if (!row || row.status !== 'active' || !continuesWithSameAgent(row, pair.agentPk, now)) return null;
      const { outcome, events } = await advanceLocked(tx, row, now, {});
      for (const event of events) await record(event);
      return outcome;
    });
    if (extended) return extended;
  }
  return null;
}

/** The row's period in progress, the agent's, ended by `now`, and the next one, in progress at `now`, is the same agent's by the schedule. */
function continuesWithSameAgent(row: Rotation, agentPk: string, now: Date): boolean {
  const current = currentOf(row);
  if (!current || current.agentPk !== agentPk || !row.coveredUntil || row.coveredUntil > now) return false;
  const change = nextChange({ schedule: scheduleOf(row), pending: pendingOf(row), coveredUntil: row.coveredUntil });
  return (
    change.at.getTime() === row.coveredUntil.getTime() &&
    change.segment.end > now &&
    change.schedule.agentIds[change.segment.position] === current.agentId
  );
}

/** One step on a locked row: the periods due at `now` handed out, the row updated; the events to record last. */
async function advanceLocked(tx: Tx, row: RotationWithClient, now: Date, clock: StepClock): Promise<{ outcome: AdvanceOutcome; events: NewEvent[] }> {
  const events: NewEvent[] = [];
  if (row.status === 'stopped') return { outcome: { step: { ...ENDED, version: row.version }, wake: null }, events };

  let schedule = scheduleOf(row);
  let pending = pendingOf(row);
  let coveredUntil = row.coveredUntil;
  let current = currentOf(row);
  const skipped = [...skippedOf(row)];
  let changed = false;

  for (let guard = 0; guard < 100; guard++) {
    const change = nextChange({ schedule, pending, coveredUntil });
    if (change.replaced) {
      schedule = change.schedule;
      pending = null;
      changed = true;
    }
    if (change.at > now) break;
    changed = true;
    const missedUntil = missedPeriodsEnd(change.at, change.segment, schedule, pending, now);
    if (missedUntil) {
      skipped.push({ at: change.at.toISOString(), until: missedUntil.toISOString(), position: null, agent: null, reason: missedReason(change.at, missedUntil, now, clock) });
      coveredUntil = missedUntil;
      current = null;
      continue;
    }
    current = await handOut(tx, row, schedule, change.segment, skipped, events);
    coveredUntil = change.segment.end;
    break;
  }

  if (changed) {
    await tx.rotation.update({
      where: { key: row.key },
      data: {
        ...scheduleColumns(schedule),
        pending: pending ? pendingJson(pending) : Db.DbNull,
        coveredUntil,
        current: jsonOrNull(current),
        skipped: skipped.slice(-MAX_SKIPPED) as unknown as Db.InputJsonArray,
      },
    });
  }
  const inProgress = current !== null && coveredUntil !== null && coveredUntil > now;
  const next = nextChange({ schedule, pending, coveredUntil });
  const step: RotationStep = {
    state: 'active',
    version: row.version,
    nextChangeAt: next.at.toISOString(),
    current: inProgress ? { agent: current!.agentId, position: current!.position + 1, of: current!.of, until: coveredUntil!.toISOString() } : null,
    next: { agent: next.schedule.agentIds[next.segment.position], position: next.segment.position + 1, of: next.schedule.agentIds.length },
  };
  return { outcome: { step, wake: inProgress ? { workflowId: current!.workflowId, expiry: current!.expiry } : null }, events };
}

/**
 * Why periods from `at` to `until` were not handed out: no worker was up then, or one was and the
 * step came too late (its task waited behind other work, or the database was out of reach).
 */
function missedReason(at: Date, until: Date, now: Date, { asOf, workerSince }: StepClock): string {
  const ended = `the periods that ended in between were not handed out`;
  if (!workerSince || workerSince >= until) return `No worker ran from ${at.toISOString()} to ${until.toISOString()}; ${ended}`;
  const late = `the rotation's step did not run until ${now.toISOString()}${asOf ? ` (its workflow task ran at ${asOf.toISOString()})` : ''}`;
  const before = workerSince <= at ? `A worker was running from ${at.toISOString()} to ${until.toISOString()}, but ${late}` : `No worker ran from ${at.toISOString()} to ${workerSince.toISOString()}, and then ${late}`;
  return `${before}; ${ended}`;
}

/** When whole periods ended while nobody handed them out: where the first one still worth handing out starts. */
function missedPeriodsEnd(at: Date, segment: Segment, schedule: Schedule, pending: Schedule | null, now: Date): Date | null {
  const inProgressStart = periodStartAt(schedule, now);
  if (inProgressStart > at && (!pending || inProgressStart <= pending.effectiveAt)) return inProgressStart;
  // The schedule in force ends (replaced) before now: its last piece is gone too.
  return segment.end <= now ? segment.end : null;
}

/** Records the segment's assignment for its agent, or the next agent in the list who can take it. */
async function handOut(tx: Tx, row: RotationWithClient, schedule: Schedule, segment: Segment, skipped: SkippedPeriod[], events: NewEvent[]): Promise<CurrentPeriod | null> {
  const count = schedule.agentIds.length;
  const owner = { business: row.business, ownerId: row.ownerId };
  for (let i = 0; i < count; i++) {
    const position = (segment.position + i) % count;
    const agentId = schedule.agentIds[position];
    const recorded = await recordForOwner(
      tx,
      { business: row.business, clientId: row.client.id, agents: [{ agentId, dtUntil: segment.end.toISOString() }] },
      owner,
      schedule.notes,
      { rotation: true, events },
    );
    if (recorded.outcome === 'recorded') {
      const [assignment] = recorded.assignments;
      return {
        agentId,
        agentPk: assignment.expiry.agentPk,
        position,
        of: count,
        from: segment.start.toISOString(),
        workflowId: assignment.workflowId,
        expiry: assignment.expiry,
      };
    }
    skipped.push({
      at: segment.start.toISOString(),
      until: segment.end.toISOString(),
      position,
      agent: agentId,
      reason: recorded.outcome === 'agentNotAuthorized' ? `Agent ${agentId} not found or not authorized` : 'Client not found',
    });
    if (recorded.outcome === 'clientNotFound') break;
  }
  return null;
}

/** Active rotations unchanged since `before` (of one business if given), by key after `afterKey`: what the reconciler checks. */
export function activeRotationsChangedBefore(prisma: Prisma, filter: { before: Date; business?: string }, afterKey: string | undefined, take: number) {
  return prisma.rotation.findMany({
    where: {
      status: 'active',
      updatedAt: { lt: filter.before },
      ...(filter.business && { business: filter.business }),
      ...(afterKey && { key: { gt: afterKey } }),
    },
    select: { key: true, business: true, clientPk: true, client: { select: { id: true } } },
    orderBy: { key: 'asc' },
    take,
  });
}
