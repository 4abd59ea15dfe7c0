/**
 * The task queues of the service, all derived from TEMPORAL_TASK_QUEUE (the base). Each kind of work has
 * its own queue, served by its own worker (with its own slots) in the worker process, so that a burst of
 * one never waits behind another's backlog: assign-agents requests, whose caller waits for the answer;
 * message deliveries, which come due by the thousand; the assignments' expiry timers; and webhook
 * deliveries, whose first attempt holds a slot for as long as the tenant's receiver takes to answer
 * (up to WEBHOOK_TIMEOUT_MS). The base queue keeps the rest — rotations, the reconciler, the Nexus
 * endpoint — and every run started before the queues were split, which stays on the queue it started on.
 */
export function taskQueuesOf(base: string) {
  return { base, assign: `${base}-assign`, messages: `${base}-messages`, expiry: `${base}-expiry`, webhooks: `${base}-webhooks` } as const;
}

export type TaskQueueRole = keyof ReturnType<typeof taskQueuesOf>;
