import { ActivityFailure, ApplicationFailure, condition, ContinueAsNew, continueAsNew, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../../activities';
import { crmEventRecordedSignal, type ProcessCrmLeadInput } from '../../domain';
import { continueAsNewOnTarget, targetVersionChanged } from '../versioning';

type Activities = ReturnType<typeof createActivities>;

type Steps = Pick<Activities, 'nextCrmEvent' | 'finishCrmEvent' | 'decideLead' | 'assignLead' | 'awaitLeadRouting' | 'failLeadOwnerWrite' | 'followLeadHolder' | 'handleOwnerChange'>;

// Database steps: short, retried for a while.
const DATABASE_STEP = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;
// Steps that call the CRM or wait for a client's run. A 429 waits its Retry-After instead of the backoff;
// after 10 attempts (about 40 minutes) the write is given up and reported.
const CRM_STEP = {
  startToCloseTimeout: '90 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10 },
} as const;

// The CRM's own calls run as activity tasks that heartbeat: a worker killed mid-call is noticed within
// 15 s and the call retried elsewhere.
const { syncLeadClient, writeLeadOwner } = proxyActivities<Activities>({ ...CRM_STEP, heartbeatTimeout: '15 seconds' });

// The database's steps run in the worker that holds the run (local activities): no task of their own on
// the server, a fraction of its work per lead.
const localDatabase = proxyLocalActivities<Activities>(DATABASE_STEP);
const localDeciding = proxyLocalActivities<Activities>(CRM_STEP);
const STEPS: Steps = {
  nextCrmEvent: localDatabase.nextCrmEvent,
  finishCrmEvent: localDatabase.finishCrmEvent,
  failLeadOwnerWrite: localDatabase.failLeadOwnerWrite,
  followLeadHolder: localDatabase.followLeadHolder,
  decideLead: localDeciding.decideLead,
  assignLead: localDeciding.assignLead,
  awaitLeadRouting: localDeciding.awaitLeadRouting,
  handleOwnerChange: localDeciding.handleOwnerChange,
};

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
  const steps = STEPS;
  for (let handled = 0; handled < EVENTS_PER_RUN; handled++) {
    woken = false;
    const next = await steps.nextCrmEvent(input);
    if (!next) {
      if (woken) continue;
      return;
    }
    const outcome =
      next.kind === 'created'
        ? await routeLead(steps, input, poked)
        : next.kind === 'holder_changed'
          ? await followHolder(steps, input)
          : await steps.handleOwnerChange(input, next.eventId).catch(() => 'failed');
    await steps.finishCrmEvent(next.eventId, outcome);
  }
  await continueAsNew<typeof processCrmLead>(input);
}

async function routeLead(steps: Steps, input: ProcessCrmLeadInput, poked: { value: boolean }): Promise<string> {
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
    writeStatus = await steps.decideLead(input);
    await steps.assignLead(input);
    // Queued by the connector's policy: the event stays unfinished while the lead waits, so a new run
    // (after continue-as-new or a restart) comes back here and waits on.
    for (let wait = QUEUED_FIRST_LOOK_MS; writeStatus === 'queued'; wait = Math.min(wait * 2, QUEUED_LOOK_CAP_MS)) {
      poked.value = false;
      await condition(() => poked.value, wait);
      if (workflowInfo().continueAsNewSuggested || targetVersionChanged()) await continueAsNewOnTarget<typeof processCrmLead>(input);
      writeStatus = await steps.awaitLeadRouting(input);
    }
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    return 'assign_refused';
  }
  if (writeStatus === 'rejected' || writeStatus === 'canceled') return writeStatus;
  if (writeStatus !== 'pending') return 'routed';
  return (await writeOwner(steps, input)) ? 'routed' : 'owner_sync_failed';
}

/** An assignment of the lead's client ended: whoever holds it now is written back as the owner (nobody: left as is). */
async function followHolder(steps: Steps, input: ProcessCrmLeadInput): Promise<string> {
  const outcome = await steps.followLeadHolder(input);
  if (outcome !== 'pending') return outcome;
  return (await writeOwner(steps, input)) ? 'written' : 'owner_sync_failed';
}

/** The lead's pending owner written back, retried as the CRM allows; a final refusal is recorded. */
async function writeOwner(steps: Steps, input: ProcessCrmLeadInput): Promise<boolean> {
  try {
    await writeLeadOwner(input);
    return true;
  } catch (error) {
    await steps.failLeadOwnerWrite(input, failureMessage(error));
    return false;
  }
}
