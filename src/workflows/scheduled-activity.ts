import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { createActivities } from '../activities';

type Activities = ReturnType<typeof createActivities>;

/**
 * The one activity a Schedule's run (the reconciler, the deliveries' sweep) consists of: heartbeating
 * while it works, retried five times over a few minutes; a run that still fails leaves the work to the
 * Schedule's next one.
 */
export function scheduledActivity<Name extends keyof Activities>(name: Name, timeouts: Pick<ActivityOptions, 'startToCloseTimeout' | 'heartbeatTimeout'>): Activities[Name] {
  return proxyActivities<Activities>({ ...timeouts, retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 } })[name];
}
