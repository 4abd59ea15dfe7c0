import type { WorkerOptions } from '@temporalio/worker';
import type { TaskQueueRole } from '../domain';
import type { PollKind, PolledQueue } from './versioning';

type Tuning = Pick<
  WorkerOptions,
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'maxConcurrentLocalActivityExecutions'
  | 'maxConcurrentActivityTaskExecutions'
  | 'maxCachedWorkflows'
  | 'enableNonLocalActivities'
>;

/**
 * Slots and cache of each task queue's worker (see taskQueuesOf), measured with `npm run bench --
 * lateness` and `-- isolation` (figures in docs/performance.md):
 *
 * - Slots: on the 2-core machine the drain of 1,000 due messages is bound by CPU (the dev server and the
 *   workflow sandbox's cost per activation), not by slots: 100 task slots with 20 pollers, or 10 with 4,
 *   moved p99 lateness within the noise of the SDK's defaults (40 slots, 10 pollers). The message worker
 *   keeps 40; a local activity holds a database connection for a few milliseconds, so 40 of them wait
 *   on the pool at worst rather than on PostgreSQL.
 * - Cache: a message's run ends in the task that wakes it, so its cache only needs to cover the tasks in
 *   flight. A client's run (the assign queue) answers each request of its client but then sleeps until
 *   its next clock: the 250 most recently used stay cached, so a client re-assigned again soon is answered
 *   without replaying its history, and the rest replay at most 1,000 events (its history's bound). 1,000
 *   cached took the worker from 540 MB to 1,030 MB in `scale` (half a megabyte a run). Expiry runs sleep for up to 30 days between tasks:
 *   caching them would keep every live assignment's run in memory (the 100,000 of the scale goal), so
 *   a handful are kept and the rest replay their few events when they wake.
 * - The assign and expiry workflows use local activities only: their workers poll no activity tasks.
 * - Webhook deliveries: a first attempt is a local activity inside the run's workflow task, so it holds
 *   a workflow task slot and a local activity slot for the whole POST (up to WEBHOOK_TIMEOUT_MS). Their
 *   own queue keeps a slow receiver's backlog away from rotations, the reconciler and Nexus on the base
 *   queue; 20 of each bound how many POSTs wait on receivers at once (retries are regular activities).
 */
export const WORKER_TUNING: Record<TaskQueueRole, Tuning> = {
  base: { maxConcurrentWorkflowTaskExecutions: 10, maxConcurrentLocalActivityExecutions: 10, maxConcurrentActivityTaskExecutions: 20, maxCachedWorkflows: 100 },
  assign: { maxConcurrentWorkflowTaskExecutions: 20, maxConcurrentLocalActivityExecutions: 40, maxCachedWorkflows: 250, enableNonLocalActivities: false },
  messages: { maxConcurrentWorkflowTaskExecutions: 40, maxConcurrentLocalActivityExecutions: 40, maxConcurrentActivityTaskExecutions: 20, maxCachedWorkflows: 100 },
  expiry: { maxConcurrentWorkflowTaskExecutions: 10, maxConcurrentLocalActivityExecutions: 10, maxCachedWorkflows: 100, enableNonLocalActivities: false },
  webhooks: { maxConcurrentWorkflowTaskExecutions: 20, maxConcurrentLocalActivityExecutions: 20, maxConcurrentActivityTaskExecutions: 20, maxCachedWorkflows: 100 },
};

/** What each role's worker polls: workflow tasks everywhere, activity tasks where it runs regular activities, Nexus tasks on the base queue. */
export function polledQueuesOf(queues: Record<TaskQueueRole, string>): PolledQueue[] {
  return (Object.keys(queues) as TaskQueueRole[]).map((role) => {
    const kinds: PollKind[] = ['workflow'];
    if (WORKER_TUNING[role].enableNonLocalActivities !== false) kinds.push('activity');
    if (role === 'base') kinds.push('nexus');
    return { name: queues[role], kinds };
  });
}
