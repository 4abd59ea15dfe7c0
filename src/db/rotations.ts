import { Prisma as Db, type Rotation } from '../generated/prisma/client';
import type { RotationState } from '../domain/rotation-advance';
import { pendingJson, type CurrentPeriod } from '../domain/rotation-row';
import type { Schedule } from '../domain/rotation-schedule';
import { withEvents, type NewEvent } from './events';
import type { Prisma } from './prisma';
import type { Scope } from './scope';
import { rotationEvent } from '../views/event-payloads';

export type { RotationRequestData } from '../domain/rotation-advance';
export { rotationEvent };

/*
 * The rows of `rotations`: read, locked, written, and stopped (a compare-and-set on `status = 'active'`,
 * with its `rotation.stopped`). What a PUT or a boundary does to a row is decided in
 * src/domain/rotation-advance.ts and applied by src/use-cases/rotation/, in a transaction holding the
 * row (or, for the first PUT, the client) locked, so a PUT racing a boundary is applied before or after it, never half.
 */

type Tx = Db.TransactionClient;

export type RotationWithClient = Rotation & { client: { id: string } };

const WITH_CLIENT = { client: { select: { id: true } } } as const;

const scheduleColumns = (s: Schedule) => ({
  agentIds: s.agentIds,
  period: s.period,
  periodMs: BigInt(s.periodMs),
  startsAt: s.startsAt,
  effectiveAt: s.effectiveAt,
  notes: s.notes,
});

/** A change of a row; what is left out stays as it is. */
export interface RotationChange {
  schedule?: Schedule;
  agentIds?: string[];
  pending?: Schedule | null;
  coveredUntil?: Date | null;
  current?: CurrentPeriod | null;
  skipped?: RotationState['skipped'];
  status?: 'active' | 'stopped';
  stopped?: { at: Date; by: string } | null;
  /** The change is a new version of the rotation, which its workflow applies. */
  newVersion?: boolean;
}

const columnsOf = (c: RotationChange): Db.RotationUpdateInput => ({
  ...(c.schedule && scheduleColumns(c.schedule)),
  ...(c.agentIds && { agentIds: c.agentIds }),
  ...(c.pending !== undefined && { pending: c.pending ? pendingJson(c.pending) : Db.DbNull }),
  ...(c.status && { status: c.status }),
  ...(c.newVersion && { version: { increment: 1 } }),
  ...(c.coveredUntil !== undefined && { coveredUntil: c.coveredUntil }),
  ...(c.current !== undefined && { current: c.current === null ? Db.DbNull : (c.current as unknown as Db.InputJsonObject) }),
  ...(c.skipped && { skipped: c.skipped as unknown as Db.InputJsonArray }),
  ...(c.stopped !== undefined && { stoppedAt: c.stopped?.at ?? null, stoppedBy: c.stopped?.by ?? null }),
});

/** The user's rotation of the client, stopped or not; null when there never was one. */
export function findRotation(prisma: Prisma | Tx, clientPk: string, ownerId: string): Promise<RotationWithClient | null> {
  return prisma.rotation.findUnique({ where: { clientPk_ownerId: { clientPk, ownerId } }, include: WITH_CLIENT });
}

/** Two first PUTs on one client must not both insert: the client row orders them. */
export async function lockClientForRotation(tx: Tx, clientPk: string): Promise<void> {
  await tx.$queryRaw`SELECT pk FROM clients WHERE pk = ${clientPk}::uuid FOR NO KEY UPDATE`;
}

/** The row, locked until the transaction ends; null when gone. */
export async function lockRotationRow(tx: Tx, rotationKey: string): Promise<RotationWithClient | null> {
  await tx.$queryRaw`SELECT key FROM rotations WHERE key = ${rotationKey}::uuid FOR UPDATE`;
  return tx.rotation.findUnique({ where: { key: rotationKey }, include: WITH_CLIENT });
}

export function createRotation(tx: Tx, clientPk: string, scope: Scope, schedule: Schedule): Promise<RotationWithClient> {
  return tx.rotation.create({ data: { clientPk, ...scope, ...scheduleColumns(schedule) }, include: WITH_CLIENT });
}

export function findRotationByKey(tx: Tx, key: string): Promise<RotationWithClient> {
  return tx.rotation.findUniqueOrThrow({ where: { key }, include: WITH_CLIENT });
}

export function updateRotation(tx: Tx, key: string, change: RotationChange): Promise<RotationWithClient> {
  return tx.rotation.update({ where: { key }, data: columnsOf(change), include: WITH_CLIENT });
}

/** The owner's active rotations that name the agent (in force or waiting), locked in key order. */
export async function lockRotationsNaming(tx: Tx, scope: Scope, agentId: string): Promise<string[]> {
  const keys = await tx.$queryRaw<{ key: string }[]>`
    SELECT key FROM rotations
     WHERE business = ${scope.business} AND owner_id = ${scope.ownerId} AND status = 'active'
       AND (${agentId} = ANY(agent_ids) OR (pending IS NOT NULL AND pending -> 'agentIds' ? ${agentId}))
     ORDER BY key
       FOR UPDATE`;
  return keys.map((k) => k.key);
}

/** The client's active rotations whose period held by the agent has ended by `now`: those an expiry may extend. */
export async function rotationsEndedWithAgent(prisma: Prisma, pair: { clientPk: string; agentPk: string }, now: Date): Promise<string[]> {
  const rows = await prisma.rotation.findMany({
    where: { clientPk: pair.clientPk, status: 'active', coveredUntil: { lte: now }, current: { path: ['agentPk'], equals: pair.agentPk } },
    select: { key: true },
  });
  return rows.map((r) => r.key);
}

export type StopRotationOutcome = { outcome: 'clientNotFound' } | { outcome: 'notActive' } | { outcome: 'stopped'; rotation: RotationWithClient };

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
      include: WITH_CLIENT,
    });
    await record(rotationEvent('rotation.stopped', rotation, 'api'));
    return { outcome: 'stopped', rotation };
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
    include: WITH_CLIENT,
  });
  await tx.rotation.updateMany({ where: { clientPk }, data: { notes: null, pending: Db.DbNull } });
  for (const rotation of stopped) events.push(rotationEvent('rotation.stopped', rotation, 'client_deleted'));
  return stopped;
}

/** The client's active rotations, and the run named on each one of data from before one run per client (null: the client's run). */
export function activeRotationsOfClient(prisma: Prisma, clientPk: string): Promise<{ key: string; workflowId: string | null }[]> {
  return prisma.rotation.findMany({ where: { clientPk, status: 'active' }, select: { key: true, workflowId: true }, orderBy: { key: 'asc' } });
}

/** The rotations' clocks pass to the client's run: no row names another run any more. */
export async function takeOverRotationClocks(prisma: Prisma, keys: string[]): Promise<void> {
  if (keys.length > 0) await prisma.rotation.updateMany({ where: { key: { in: keys }, workflowId: { not: null } }, data: { workflowId: null } });
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
    select: { key: true, business: true, clientPk: true, workflowId: true, client: { select: { id: true } } },
    orderBy: { key: 'asc' },
    take,
  });
}
