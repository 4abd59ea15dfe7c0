import { Context } from '@temporalio/activity';

/**
 * Runs `work` while heartbeating every `everyMs`, so that an attempt whose worker died is noticed
 * within the activity's heartbeat timeout instead of its whole start-to-close timeout (as an activity task).
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, everyMs = 1000): Promise<T> {
  const context = Context.current();
  // A local activity has no heartbeat: its workflow task's own timeout notices a lost worker.
  if (context.info.isLocal) return work();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
