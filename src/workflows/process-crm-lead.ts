import { ActivityFailure, ApplicationFailure, continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { crmEventRecordedSignal, type ProcessCrmLeadInput } from '../domain';

type Activities = ReturnType<typeof createActivities>;

// Database steps: short, retried for a while.
const { nextCrmEvent, finishCrmEvent, decideLead, failLeadOwnerWrite } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// Steps that call the CRM or wait for the assign-agents workflow. A 429 waits its Retry-After instead of
// the backoff; after 10 attempts (about 40 minutes) the write is given up and reported.
const { syncLeadClient, assignLead, writeLeadOwner, handleOwnerChange } = proxyActivities<Activities>({
  startToCloseTimeout: '90 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10 },
});

/** Events handled by one run before it continues as new, keeping its history short. */
const EVENTS_PER_RUN = 50;

const failureMessage = (error: unknown) => {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? cause.message : 'The CRM kept refusing the owner';
};

/**
 * One run at a time per CRM record: handles its recorded events in order — a new record is made a
 * client, decided, assigned and its owner written back; a change of owner is an echo or a conflict —
 * and ends when none is left. A signal from the inbound route (signal-with-start) means another event
 * was recorded: the run reads it before it ends. Only ids pass through here.
 */
export async function processCrmLead(input: ProcessCrmLeadInput): Promise<void> {
  let woken = false;
  setHandler(crmEventRecordedSignal, () => {
    woken = true;
  });
  for (let handled = 0; handled < EVENTS_PER_RUN; handled++) {
    woken = false;
    const next = await nextCrmEvent(input);
    if (!next) {
      if (woken) continue;
      return;
    }
    const outcome = next.kind === 'created' ? await routeLead(input) : await handleOwnerChange(input, next.eventId).catch(() => 'failed');
    await finishCrmEvent(next.eventId, outcome);
  }
  await continueAsNew<typeof processCrmLead>(input);
}

async function routeLead(input: ProcessCrmLeadInput): Promise<string> {
  let found: boolean;
  try {
    found = await syncLeadClient(input);
  } catch {
    return 'unreadable';
  }
  if (!found) return 'gone';
  let writeStatus: string;
  try {
    writeStatus = await decideLead(input);
    await assignLead(input);
  } catch {
    return 'assign_refused';
  }
  if (writeStatus !== 'pending') return 'routed';
  try {
    await writeLeadOwner(input);
  } catch (error) {
    await failLeadOwnerWrite(input, failureMessage(error));
    return 'owner_sync_failed';
  }
  return 'routed';
}
