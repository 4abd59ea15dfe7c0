import type { Client as TemporalClient } from '@temporalio/client';
import type { Prisma } from '../../db/prisma';
import { policiesWithWaiting } from '../../db/routing-decisions';
import type { Scope } from '../../db/scope';
import { wakeRoutingQueue } from '../../starters/routing-queue-workflow';

export interface WakeDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  log?: (error: unknown) => void;
}

/** Wakes one policy's queue workflow. Best effort: the row is the truth, and a waiting queue re-checks by itself every minute. */
export async function wakePolicyQueue(deps: WakeDeps, policy: { business: string; pk: string; id: string }): Promise<void> {
  try {
    await wakeRoutingQueue(deps.temporal, deps.taskQueue, { business: policy.business, policyKey: policy.pk, policyId: policy.id });
  } catch (error) {
    deps.log?.(error);
  }
}

/** Capacity of the owner's agents may have freed: every policy of the owner with clients waiting drains now. */
export async function wakeWaitingQueues(deps: WakeDeps, scope: Scope): Promise<void> {
  for (const policy of await policiesWithWaiting(deps.prisma, scope)) await wakePolicyQueue(deps, policy);
}
