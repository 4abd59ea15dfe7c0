import { ActivityFailure, ApplicationFailure, condition, ContinueAsNew, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { crmEventRecordedSignal, type ProcessCrmLeadInput } from '../domain';

type Activities = ReturnType<typeof createActivities>;

// Database steps: short, retried for a while.
const { nextCrmEvent, finishCrmEvent, decideLead, awaitLeadRouting, failLeadOwnerWrite, followLeadHolder } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// Steps that call the CRM or wait for the assign-agents workflow. A 429 waits its Retry-After instead of
// the backoff; after 10 attempts (about 40 minutes) the write is given up and reported.
// They heartbeat while they run: a worker killed mid-step is noticed within 15 s, and the step retried.
const { syncLeadClient, assignLead, writeLeadOwner, handleOwnerChange } = proxyActivities<Activities>({
  startToCloseTimeout: '90 seconds',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10 },
});

/** A lead waiting in its policy's queue is looked at again after this, doubling up to the cap; the queue's assignment also wakes the run. */
const QUEUED_FIRST_LOOK_MS = 2_000;
const QUEUED_LOOK_CAP_MS = 5 * 60_000;

/** Events handled by one run before it continues as new, keeping its history short. */
const EVENTS_PER_RUN = 50;

const failureMessage = (error: unknown) => {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? cause.message : 'The CRM kept refusing the owner';
};

/**
 * One run at a time per CRM record: handles its recorded events in order — a new record is made a
 * client, decided, assigned and its owner written back; a change of owner is an echo or a conflict;
 * an ended assignment of the client makes its new holder the owner written back — and ends when none
 * is left. A signal from the inbound route (signal-with-start) means another event
 * was recorded: the run reads it before it ends. Only ids pass through here.
 */
export async function processCrmLead(input: ProcessCrmLeadInput): Promise<void> {
  let woken = false;
  const poked = { value: false };
  setHandler(crmEventRecordedSignal, () => {
    woken = true;
    poked.value = true;
  });
  for (let handled = 0; handled < EVENTS_PER_RUN; handled++) {
    woken = false;
    const next = await nextCrmEvent(input);
    if (!next) {
      if (woken) continue;
      return;
    }
    const outcome =
      next.kind === 'created'
        ? await routeLead(input, poked)
        : next.kind === 'holder_changed'
          ? await followHolder(input)
          : await handleOwnerChange(input, next.eventId).catch(() => 'failed');
    await finishCrmEvent(next.eventId, outcome);
  }
  await continueAsNew<typeof processCrmLead>(input);
}

async function routeLead(input: ProcessCrmLeadInput, poked: { value: boolean }): Promise<string> {
  let found: boolean | 'erased';
  try {
    found = await syncLeadClient(input);
  } catch {
    return 'unreadable';
  }
  // Its client was erased meanwhile: the event is ignored, and stripped of the record's id.
  if (found === 'erased') return 'erased';
  if (!found) return 'gone';
  let writeStatus: string;
  try {
    writeStatus = await decideLead(input);
    await assignLead(input);
    // Queued by the connector's policy: the event stays unfinished while the lead waits, so a new run
    // (after continue-as-new or a restart) comes back here and waits on.
    for (let wait = QUEUED_FIRST_LOOK_MS; writeStatus === 'queued'; wait = Math.min(wait * 2, QUEUED_LOOK_CAP_MS)) {
      poked.value = false;
      await condition(() => poked.value, wait);
      if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof processCrmLead>(input);
      writeStatus = await awaitLeadRouting(input);
    }
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    return 'assign_refused';
  }
  if (writeStatus === 'rejected' || writeStatus === 'canceled') return writeStatus;
  if (writeStatus !== 'pending') return 'routed';
  return (await writeOwner(input)) ? 'routed' : 'owner_sync_failed';
}

/** An assignment of the lead's client ended: whoever holds it now is written back as the owner (nobody: left as is). */
async function followHolder(input: ProcessCrmLeadInput): Promise<string> {
  const outcome = await followLeadHolder(input);
  if (outcome !== 'pending') return outcome;
  return (await writeOwner(input)) ? 'written' : 'owner_sync_failed';
}

/** The lead's pending owner written back, retried as the CRM allows; a final refusal is recorded. */
async function writeOwner(input: ProcessCrmLeadInput): Promise<boolean> {
  try {
    await writeLeadOwner(input);
    return true;
  } catch (error) {
    await failLeadOwnerWrite(input, failureMessage(error));
    return false;
  }
}
