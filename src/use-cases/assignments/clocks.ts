import type { Client as TemporalClient } from '@temporalio/client';
import { listActiveClocks, listDueAssignments, takeOverActiveClocks } from '../../db/assignment-clocks';
import { endAssignmentByOperator, endClientAssignmentsByOperator, expireAssignmentIfDue, findActiveAssignment, recordAssignments, type Pair } from '../../db/assignments';
import type { Prisma } from '../../db/prisma';
import type { AssignmentClock, AssignmentExpiryInput, ExpiryCheck, RecordAssignmentsInput } from '../../domain';
import { startOrWakeExpiry, wakeExpiry } from '../../starters/assignment-expiry-workflow';
import { wakeQueuesOfClientOwner } from './after-change';

export type { Pair } from '../../db/assignments';

/*
 * The assignments' clocks as the client's run (and an older build's per-pair run, `workflowId`) keeps
 * them: recording a request, taking the clocks over, expiring what is due, an operator's cancel.
 */

export interface AssignmentClockDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  /**
   * A rotation whose next period is the pair's agent's again extends its assignment instead
   * (src/use-cases/rotation/advance.ts, which depends on this folder: handed in, so the dependency runs one way).
   */
  extendIntoNextPeriod: (prisma: Prisma, pair: Pair) => Promise<{ wake: { workflowId: string; expiry: AssignmentExpiryInput } | null } | null>;
}

/** Tells the per-pair runs of an older build whose rows the client's run took over to re-read them: they end. */
async function releaseReplacedRuns(deps: AssignmentClockDeps, workflowIds: Iterable<string>): Promise<void> {
  for (const workflowId of new Set(workflowIds)) await wakeExpiry(deps.temporal, workflowId);
}

/** Checks that the client and every agent are the caller's, then records all assignments or none; the runs they replace are released. */
export async function recordAssignmentRequest(deps: AssignmentClockDeps, input: RecordAssignmentsInput) {
  const recorded = await recordAssignments(deps.prisma, input);
  if (recorded.outcome === 'recorded') await releaseReplacedRuns(deps, recorded.assignments.flatMap((a) => a.replacedWorkflowId ?? []));
  return recorded;
}

/** The client's active assignments, every one of them now under the run `workflowId`. */
export async function takeOverClientClocks(deps: AssignmentClockDeps, clientPk: string, workflowId: string): Promise<AssignmentClock[]> {
  const { clocks, replaced } = await takeOverActiveClocks(deps.prisma, clientPk, workflowId);
  await releaseReplacedRuns(deps, replaced);
  return clocks;
}

/**
 * The pair's active assignment is due: a rotation whose next period is the same agent's extends it
 * (see extendIntoNextPeriod), else it expires and the owner's routing queues get the freed capacity.
 */
async function expirePair(deps: AssignmentClockDeps, pair: Pair, workflowId?: string): Promise<ExpiryCheck> {
  const extended = await deps.extendIntoNextPeriod(deps.prisma, pair);
  // Another agent took the period (this one could not): its assignment needs its clock.
  if (extended?.wake && extended.wake.expiry.agentPk !== pair.agentPk) await startOrWakeExpiry(deps.temporal, deps.taskQueue, extended.wake.workflowId, extended.wake.expiry);
  const check = await expireAssignmentIfDue(deps.prisma, pair, new Date(), workflowId);
  if (check.status === 'expired') await wakeQueuesOfClientOwner(deps, pair.clientPk);
  return check;
}

/** Every active assignment of the client whose date has come ends (or runs on into its rotation's next period); then the clocks left. */
export async function expireDueAssignments(deps: AssignmentClockDeps, clientPk: string): Promise<AssignmentClock[]> {
  for (const { agentPk } of await listDueAssignments(deps.prisma, clientPk, new Date())) await expirePair(deps, { clientPk, agentPk });
  return listActiveClocks(deps.prisma, clientPk);
}

/** An older per-pair run: its pair's active assignment, while that run still holds its clock. */
export const activeAssignmentOfRun = (deps: AssignmentClockDeps, pair: Pair, workflowId: string) => findActiveAssignment(deps.prisma, pair, workflowId);

/** An older per-pair run: marks its pair's assignment expired if its date has come; otherwise says what is there. */
export async function expireAssignmentOfRun(deps: AssignmentClockDeps, pair: Pair, workflowId: string): Promise<ExpiryCheck> {
  if (!(await findActiveAssignment(deps.prisma, pair, workflowId))) return { status: 'none' };
  return expirePair(deps, pair, workflowId);
}

/** An operator canceled the client's run: every active assignment it holds ends now, as unassigned by an operator. */
export async function endClientAssignmentsOfRun(deps: AssignmentClockDeps, clientPk: string, workflowId: string): Promise<number> {
  const ended = await endClientAssignmentsByOperator(deps.prisma, clientPk, workflowId);
  if (ended > 0) await wakeQueuesOfClientOwner(deps, clientPk);
  return ended;
}

/** An operator canceled an older per-pair run: its active assignment ends now, as unassigned by an operator. */
export async function endAssignmentOfRun(deps: AssignmentClockDeps, pair: Pair, workflowId: string): Promise<boolean> {
  const ended = await endAssignmentByOperator(deps.prisma, pair, workflowId);
  if (ended) await wakeQueuesOfClientOwner(deps, pair.clientPk);
  return ended;
}
