import { condition, continueAsNew, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  assignmentChangedSignal,
  assignmentStateQuery,
  type AssignmentExpiryInput,
  type AssignmentExpiryResult,
  withoutLegacyFields,
} from './definitions';
import { nextSleepMs } from './timers';

const { expireAssignmentIfDue, loadActiveAssignment } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** A database clock slightly behind the worker's must not turn the loop into a busy one. */
const MIN_RECHECK_MS = 1000;

/**
 * Lives as long as the (client, agent) pair has an active assignment and marks it expired at its
 * `dt_until`. The database row is the truth: a signal only says "re-read it".
 */
export async function assignmentExpiry(input: AssignmentExpiryInput): Promise<AssignmentExpiryResult> {
  let dtUntil = input.dtUntil;
  let nextWakeAt = dtUntil;
  let changed = false;
  setHandler(assignmentChangedSignal, () => {
    changed = true;
  });
  setHandler(assignmentStateQuery, () => ({ dtUntil, nextWakeAt }));

  const pair = { clientPk: input.clientPk, agentPk: input.agentPk };
  for (;;) {
    if (changed) {
      changed = false;
      const current = await loadActiveAssignment(pair);
      if (!current) return { outcome: 'ended' };
      dtUntil = current.dtUntil;
    }
    const now = Date.now();
    const deadline = Date.parse(dtUntil);
    if (deadline <= now) {
      const check = await expireAssignmentIfDue(pair);
      if (check.status === 'expired') return { outcome: 'expired' };
      if (check.status === 'none') return { outcome: 'ended' };
      dtUntil = check.dtUntil;
      if (Date.parse(dtUntil) <= Date.now()) await condition(() => changed, MIN_RECHECK_MS);
      continue;
    }
    const { sleepMs, reachesDeadline } = nextSleepMs(deadline, now);
    nextWakeAt = new Date(now + sleepMs).toISOString();
    if (await condition(() => changed, sleepMs)) continue;
    if (!reachesDeadline || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof assignmentExpiry>({ ...withoutLegacyFields(input), dtUntil });
    }
  }
}
