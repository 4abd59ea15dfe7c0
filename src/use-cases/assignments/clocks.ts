import type { Client as TemporalClient } from '@temporalio/client';
import { listActiveClocks, listDueAssignments, takeOverActiveClocks } from '../../db/assignment-clocks';
import { expireAssignmentIfDue, recordAssignments, type Pair } from '../../db/assignments';
import type { Prisma } from '../../db/prisma';
import type { AssignmentClock, AssignmentExpiryInput, ExpiryCheck, RecordAssignmentsInput } from '../../domain';
import { startOrWakeExpiry } from '../../starters/assignment-expiry-workflow';
import { wakeQueuesOfClientOwner } from './after-change';

export type { Pair } from '../../db/assignments';

/*
 * The assignments' clocks as the client's run keeps them: recording a request, taking the clocks over,
 * expiring what is due.
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

/** Checks that the client and every agent are the caller's, then records all assignments or none. */
export const recordAssignmentRequest = (deps: AssignmentClockDeps, input: RecordAssignmentsInput) => recordAssignments(deps.prisma, input);

/** The client's active assignments, every one of them now under the run `workflowId` (rows of data from before one run per client name another run). */
export async function takeOverClientClocks(deps: AssignmentClockDeps, clientPk: string, workflowId: string): Promise<AssignmentClock[]> {
  return (await takeOverActiveClocks(deps.prisma, clientPk, workflowId)).clocks;
}

/**
 * The pair's active assignment is due: a rotation whose next period is the same agent's extends it
 * (see extendIntoNextPeriod), else it expires and the owner's routing queues get the freed capacity.
 */
async function expirePair(deps: AssignmentClockDeps, pair: Pair): Promise<ExpiryCheck> {
  const extended = await deps.extendIntoNextPeriod(deps.prisma, pair);
  // Another agent took the period (this one could not): its assignment needs its clock.
  if (extended?.wake && extended.wake.expiry.agentPk !== pair.agentPk) await startOrWakeExpiry(deps.temporal, deps.taskQueue, extended.wake.workflowId, extended.wake.expiry);
  const check = await expireAssignmentIfDue(deps.prisma, pair, new Date());
  if (check.status === 'expired') await wakeQueuesOfClientOwner(deps, pair.clientPk);
  return check;
}

/** Every active assignment of the client whose date has come ends (or runs on into its rotation's next period); then the clocks left. */
export async function expireDueAssignments(deps: AssignmentClockDeps, clientPk: string): Promise<AssignmentClock[]> {
  for (const { agentPk } of await listDueAssignments(deps.prisma, clientPk, new Date())) await expirePair(deps, { clientPk, agentPk });
  return listActiveClocks(deps.prisma, clientPk);
}
