import type { Client as TemporalClient } from '@temporalio/client';
import { findClientScope } from '../../db/clients';
import type { EndedBy } from '../../db/assignments';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import type { AssignmentExpiryInput, FirstResponseInput } from '../../domain';
import { startOrWakeExpiry, wakeExpiry } from '../../starters/assignment-expiry-workflow';
import { startFirstResponseClock } from '../../starters/first-response-workflow';
import { wakeCrmLeadOfClient, wakeQueuedCrmLead } from '../../starters/process-crm-lead-workflow';
import { wakeWaitingQueues } from '../../starters/routing-queue-workflow';

/*
 * What follows an assignment's start or end once its transaction has committed, for every path that
 * makes one: assign, route, the routing queue, the first-response clock, a rotation, unassign, reroute,
 * an agent's or a client's deletion, expiry. The change's events (and a CRM lead's `holder_changed`)
 * are recorded in its own transaction (src/db/assignments.ts); what follows here reaches Temporal.
 */

export interface AfterChangeDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  log?: (error: unknown) => void;
}

/** An assignment that started, or whose date changed. */
export interface StartedAssignment {
  workflowId: string;
  expiry: AssignmentExpiryInput;
  /** The routing decision that made it, when its policy runs a first-response clock. */
  firstResponse?: FirstResponseInput | null;
}

/**
 * Its client's run, which holds its expiry clock, re-reads the client's assignments (started if none is
 * open) and, for a routing decision that runs a first-response clock, its open decisions: one signal.
 * Throws when Temporal refused, so an activity retries; a request's caller may go on (the row is the
 * truth, and the reconciler restores a clock a failure left missing).
 */
export async function afterAssignmentStarted(deps: AfterChangeDeps, started: StartedAssignment): Promise<void> {
  if (started.firstResponse) await startFirstResponseClock(deps.temporal, deps.taskQueue, started.expiry);
  else await startOrWakeExpiry(deps.temporal, deps.taskQueue, started.workflowId, started.expiry);
}

/** A routing queue decided a waiting client (assigned it, or found it held): a CRM lead waiting for that looks now. */
export async function afterQueuedClientDecided(deps: AfterChangeDeps, client: { business: string; clientId: string }): Promise<void> {
  await wakeQueuedCrmLead(deps.temporal, client.business, client.clientId);
}

/** An ended assignment; without `workflowId` when the ending came from its own clock. */
export interface EndedAssignment {
  business: string;
  clientId: string;
  workflowId?: string;
}

/** Why it ended: before its date (EndedBy), or at it. */
export type EndCause = EndedBy | 'expired';

/**
 * After assignments of one owner ended: each expiry clock re-reads its row (not when the clock ended it
 * itself: expiry, or an operator canceling it); a CRM lead's run follows the client's new holder (not
 * for an erased client, whose lead is forgotten); and the owner's waiting routing queues drain, since
 * capacity freed (not when the agent was deleted: nobody gained any). Best effort, never failing the
 * caller: the rows are the truth, a clock re-reads them at its next wake-up, a waiting queue re-checks
 * every minute, and the CRM sweep hands over a lead's event left unhandled.
 */
export async function afterAssignmentsEnded(deps: AfterChangeDeps, owner: Scope, ended: EndedAssignment[], cause: EndCause): Promise<void> {
  if (ended.length === 0) return;
  for (const assignment of ended) {
    if (assignment.workflowId && cause !== 'expired' && cause !== 'operator') await wakeExpiry(deps.temporal, assignment.workflowId, deps.log);
    if (cause !== 'client_deleted') await wakeCrmLeadOfClient(deps.temporal, deps.taskQueue, assignment.business, assignment.clientId);
  }
  if (cause === 'agent_deleted') return;
  try {
    await wakeWaitingQueues(deps, owner);
  } catch (error) {
    deps.log?.(error);
  }
}

/** An assignment of this client ended by its own clock (expiry) or by an operator canceling that clock. */
export async function wakeQueuesOfClientOwner(deps: AfterChangeDeps, clientPk: string, cause: 'expired' | 'operator' = 'expired'): Promise<void> {
  try {
    const client = await findClientScope(deps.prisma, clientPk);
    // The owner only: the client's id is no column of the queues' rows.
    if (client) await afterAssignmentsEnded(deps, { business: client.business, ownerId: client.ownerId }, [{ business: client.business, clientId: client.id }], cause);
  } catch (error) {
    deps.log?.(error);
  }
}
