import {
  CancellationScope,
  condition,
  isCancellation,
  patched,
  proxyLocalActivities,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import {
  ASSIGNMENT_DT_UNTIL,
  assignmentChangedSignal,
  CANCEL_KEEPS_ROWS_PATCH,
  assignmentStateQuery,
  type AssignmentExpiryInput,
  type AssignmentExpiryResult,
  EXPIRY_CHUNK_JITTER_PATCH,
  withoutLegacyFields,
  WORKFLOW_SEARCH_ATTRIBUTES_PATCH,
} from '../../domain';
import { listenForChanges, sleepChunk } from '../durable-wait';
import { CHUNK_JITTER_MS } from '../timers';

const { expireAssignmentIfDue, loadActiveAssignment, endAssignmentByOperator } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** A database clock slightly behind the worker's must not turn the loop into a busy one. */
const MIN_RECHECK_MS = 1000;

/**
 * Lives as long as the (client, agent) pair has an active assignment and marks it expired at its
 * `dt_until`. The database row is the truth: a signal only says "re-read it". An operator's "Request
 * Cancellation" in the Temporal UI stops the run and leaves the row (the reconciler gives it a run again);
 * before CANCEL_KEEPS_ROWS_PATCH it ended the assignment (unassigned, by `operator`).
 */
export async function assignmentExpiry(input: AssignmentExpiryInput): Promise<AssignmentExpiryResult> {
  const pair = { clientPk: input.clientPk, agentPk: input.agentPk };
  try {
    return await expireAtDtUntil(input);
  } catch (error) {
    if (isCancellation(error) && !patched(CANCEL_KEEPS_ROWS_PATCH)) await CancellationScope.nonCancellable(() => endAssignmentByOperator(pair));
    throw error;
  }
}

async function expireAtDtUntil(input: AssignmentExpiryInput): Promise<AssignmentExpiryResult> {
  let dtUntil = input.dtUntil;
  let nextWakeAt = dtUntil;
  const signal = listenForChanges(assignmentChangedSignal, assignmentStateQuery, () => ({ dtUntil, nextWakeAt }));
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
    if (signal.changed) {
      signal.changed = false;
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
      if (Date.parse(dtUntil) <= Date.now()) await condition(() => signal.changed, MIN_RECHECK_MS);
      continue;
    }
    await sleepChunk<typeof assignmentExpiry>({
      deadlineMs: deadline,
      jitterMs,
      flag: signal,
      beforeSleep: (wakeAt) => {
        nextWakeAt = wakeAt;
        show();
      },
      summary: (wakeAt, reachesDeadline) => (reachesDeadline ? `Expire at dt_until ${dtUntil}` : `Wait one chunk, until ${wakeAt} (dt_until ${dtUntil})`),
      next: () => [{ ...withoutLegacyFields(input), dtUntil }],
    });
  }
}
