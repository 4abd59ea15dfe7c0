import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/*
 * Every change of an `assign_requests` row: written by the API before the request's workflow starts,
 * then settled — user id and notes cleared, outcome kept — inside the transaction that records the
 * assignments, and deleted a week later.
 */

type Tx = Db.TransactionClient;

/** Long enough for a request whose workflow waits for a worker; nothing personal is left after settling. */
export const ASSIGN_REQUEST_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Keeps the parts of a request that Temporal must not hold, under the workflow id that will read them.
 * A repeated request with the same workflow id (a retried Nexus operation) keeps the first row.
 */
export async function insertAssignRequest(prisma: Prisma, workflowId: string, scope: Scope, notes: string | null, now = new Date()): Promise<void> {
  await deleteExpiredAssignRequests(prisma, now);
  await prisma.assignRequest.createMany({ data: [{ workflowId, ...scope, notes }], skipDuplicates: true });
}

/** How often a process sweeps out rows past their retention: not on every request, whose path it would lengthen by a statement. */
export const ASSIGN_REQUEST_SWEEP_EVERY_MS = 60_000;
const lastSweep = new WeakMap<Prisma, number>();

/** Deletes the rows older than the retention, at most once a minute per client of the database. */
async function deleteExpiredAssignRequests(prisma: Prisma, now = new Date()): Promise<void> {
  if (now.getTime() - (lastSweep.get(prisma) ?? -Infinity) < ASSIGN_REQUEST_SWEEP_EVERY_MS) return;
  lastSweep.set(prisma, now.getTime());
  await prisma.assignRequest.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - ASSIGN_REQUEST_RETENTION_MS) } } });
}

export type AssignRequestRow =
  | { state: 'pending'; scope: Scope; notes: string | null }
  | { state: 'settled'; outcome: unknown }
  | { state: 'missing' };

/** Reads and locks the request's row for the recording transaction. */
export async function lockAssignRequest(tx: Tx, workflowId: string): Promise<AssignRequestRow> {
  const [row] = await tx.$queryRaw<{ business: string; owner_id: string | null; notes: string | null; outcome: unknown }[]>`
    SELECT business, owner_id, notes, outcome FROM assign_requests WHERE workflow_id = ${workflowId} FOR UPDATE`;
  if (!row) return { state: 'missing' };
  if (row.outcome !== null) return { state: 'settled', outcome: row.outcome };
  return { state: 'pending', scope: { business: row.business, ownerId: row.owner_id! }, notes: row.notes };
}

/** pending → settled: the outcome replaces the user id and the notes. */
export async function settleAssignRequest(tx: Tx, workflowId: string, outcome: object): Promise<void> {
  await tx.assignRequest.update({ where: { workflowId }, data: { ownerId: null, notes: null, outcome: outcome as Db.InputJsonObject } });
}

/** What the API finds when it gives up waiting for a request's run (see withdrawAssignRequest). */
export type Withdrawal = { state: 'withdrawn' } | { state: 'settled'; outcome: unknown } | { state: 'recording' } | { state: 'missing' };

/** The outcome of a request the API gave up on before its run recorded it: the run, if it ever gets there, records nothing. */
export const WITHDRAWN_OUTCOME = { outcome: 'withdrawn' } as const;

/**
 * pending → settled as withdrawn, unless the run's recording transaction got there first. The row is
 * the arbiter: whichever commits first decides, so a request is either recorded or withdrawn, never
 * both. A row the recording holds locked right now is not waited for (`recording`: its answer is near).
 */
export async function withdrawAssignRequest(prisma: Prisma, workflowId: string): Promise<Withdrawal> {
  const withdrawn = await prisma.$executeRaw`
    UPDATE assign_requests SET owner_id = NULL, notes = NULL, outcome = ${JSON.stringify(WITHDRAWN_OUTCOME)}::jsonb
    WHERE workflow_id = (SELECT workflow_id FROM assign_requests WHERE workflow_id = ${workflowId} AND outcome IS NULL FOR UPDATE SKIP LOCKED)`;
  if (withdrawn === 1) return { state: 'withdrawn' };
  const [row] = await prisma.$queryRaw<{ outcome: unknown }[]>`SELECT outcome FROM assign_requests WHERE workflow_id = ${workflowId}`;
  if (!row) return { state: 'missing' };
  return row.outcome === null ? { state: 'recording' } : { state: 'settled', outcome: row.outcome };
}

/** The requests about an erased client (their workflow ids name it, `assign-agents/<business>/<client id>/…`): gone. */
export async function deleteClientAssignRequests(tx: Tx, business: string, clientId: string): Promise<void> {
  const prefix = `assign-agents/${business}/${clientId}/`;
  await tx.$executeRaw`DELETE FROM assign_requests WHERE business = ${business} AND left(workflow_id, ${prefix.length}) = ${prefix}`;
}
