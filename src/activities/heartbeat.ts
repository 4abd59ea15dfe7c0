import { Context } from '@temporalio/activity';

/**
 * Runs `work` while heartbeating every `everyMs`, so that an attempt whose worker died is noticed
 * within the activity's heartbeat timeout instead of its whole start-to-close timeout.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, everyMs = 1000): Promise<T> {
  const context = Context.current();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
