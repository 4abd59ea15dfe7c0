import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  ASSIGNMENT_DT_UNTIL,
  assignmentChangedSignal,
  assignmentStateQuery,
  type AssignmentExpiryInput,
  type AssignmentExpiryResult,
  EXPIRY_CHUNK_JITTER_PATCH,
  withoutLegacyFields,
  WORKFLOW_SEARCH_ATTRIBUTES_PATCH,
} from '../domain';
import { CHUNK_JITTER_MS, nextSleepMs } from './timers';

const { expireAssignmentIfDue, loadActiveAssignment, endAssignmentByOperator } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** A database clock slightly behind the worker's must not turn the loop into a busy one. */
const MIN_RECHECK_MS = 1000;

/**
 * Lives as long as the (client, agent) pair has an active assignment and marks it expired at its
 * `dt_until`. The database row is the truth: a signal only says "re-read it". An operator's "Request
 * Cancellation" in the Temporal UI ends the assignment now (unassigned, by `operator`), so no row is
 * left active without a timer.
 */
export async function assignmentExpiry(input: AssignmentExpiryInput): Promise<AssignmentExpiryResult> {
  const pair = { clientPk: input.clientPk, agentPk: input.agentPk };
  try {
    return await expireAtDtUntil(input);
  } catch (error) {
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => endAssignmentByOperator(pair));
    throw error;
  }
}

async function expireAtDtUntil(input: AssignmentExpiryInput): Promise<AssignmentExpiryResult> {
  let dtUntil = input.dtUntil;
  let nextWakeAt = dtUntil;
  let changed = false;
  setHandler(assignmentChangedSignal, () => {
    changed = true;
  });
  setHandler(assignmentStateQuery, () => ({ dtUntil, nextWakeAt }));
  const readable = patched(WORKFLOW_SEARCH_ATTRIBUTES_PATCH);
  // The workflow's Math.random is seeded per run, so the replay draws the same jitter.
  const jitterMs = patched(EXPIRY_CHUNK_JITTER_PATCH) ? Math.floor(Math.random() * CHUNK_JITTER_MS) : 0;
  // A run continued as new keeps its attributes: upsert only a date that changed.
  let shownDtUntil = workflowInfo().typedSearchAttributes.get(ASSIGNMENT_DT_UNTIL)?.toISOString();
  const show = () => {
    setCurrentDetails(`Agent ${input.agentId} on client ${input.clientId}: active until ${dtUntil}; next wake-up ${nextWakeAt}`);
    if (readable && shownDtUntil !== dtUntil) {
      upsertSearchAttributes([{ key: ASSIGNMENT_DT_UNTIL, value: new Date(dtUntil) }]);
      shownDtUntil = dtUntil;
    }
  };

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
    const { sleepMs, reachesDeadline } = nextSleepMs(deadline, now, jitterMs);
    nextWakeAt = new Date(now + sleepMs).toISOString();
    show();
    const summary = reachesDeadline ? `Expire at dt_until ${dtUntil}` : `Wait one chunk, until ${nextWakeAt} (dt_until ${dtUntil})`;
    if (await condition(() => changed, sleepMs, { summary })) continue;
    if (!reachesDeadline || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof assignmentExpiry>({ ...withoutLegacyFields(input), dtUntil });
    }
  }
}
