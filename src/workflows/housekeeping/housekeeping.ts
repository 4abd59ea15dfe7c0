import { ActivityFailure, condition, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { continueAsNewOnTarget, targetVersionChanged } from '../versioning';
import type { createActivities } from '../../activities';
import { CRM_SYNC_EVERY_MS, FULL_RECONCILE_EVERY_MS, HOUSEKEEPING_RUN_MS, type HousekeepingInput, RECONCILE_EVERY_MS, REGISTRATION_REFRESH_EVERY_MS, sweepWebhooksSignal } from '../../domain';

const { reconcileOrphans, handOverPendingDeliveries, syncCrmConnectors, refreshNumberRegistrations } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * The service's upkeep in one run per task queue, in place of a Schedule's run every two minutes: a
 * recent reconciler pass every RECONCILE_EVERY_MS (the first pass of a fresh run is full, then one every
 * FULL_RECONCILE_EVERY_MS), the CRM connectors' catch-up sweep every hour, the numbers' A2P registrations read
 * again every hour (REGISTRATION_REFRESH_EVERY_MS), the webhook sweep every `sweepEveryMs` and at once when signaled. A pass that
 * fails after its retries is logged and the loop goes on: the next one covers it (a recent pass looks back
 * three intervals). Each loop is a handful of events; the run continues as new every HOUSEKEEPING_RUN_MS
 * (about 2,000 events), carrying when the next full pass and sweep are due.
 */
export async function housekeeping(input: HousekeepingInput): Promise<void> {
  const started = Date.now();
  let nextFull = input.nextFullAt ? Date.parse(input.nextFullAt) : started;
  let nextSweep = input.nextSweepAt ? Date.parse(input.nextSweepAt) : started + input.sweepEveryMs;
  let nextRecent = started;
  let nextCrmSync = input.nextCrmSyncAt ? Date.parse(input.nextCrmSyncAt) : started + CRM_SYNC_EVERY_MS;
  let nextRegistrations = input.nextRegistrationRefreshAt ? Date.parse(input.nextRegistrationRefreshAt) : started + REGISTRATION_REFRESH_EVERY_MS;
  let sweepAsked = false;
  setHandler(sweepWebhooksSignal, () => {
    sweepAsked = true;
  });

  for (;;) {
    if (sweepAsked || Date.now() >= nextSweep) {
      sweepAsked = false;
      await step('webhook sweep', () => handOverPendingDeliveries({ graceMs: input.sweepGraceMs }));
      nextSweep = Date.now() + input.sweepEveryMs;
    }
    if (Date.now() >= nextCrmSync) {
      await step('CRM catch-up sweep', () => syncCrmConnectors());
      nextCrmSync = Date.now() + CRM_SYNC_EVERY_MS;
    }
    if (Date.now() >= nextRegistrations) {
      await step('numbers\' registration refresh', () => refreshNumberRegistrations());
      nextRegistrations = Date.now() + REGISTRATION_REFRESH_EVERY_MS;
    }
    if (Date.now() >= nextFull) {
      await step('full reconciler pass', () => reconcileOrphans({ full: true }));
      nextFull = Date.now() + FULL_RECONCILE_EVERY_MS;
      nextRecent = Date.now() + RECONCILE_EVERY_MS;
    } else if (Date.now() >= nextRecent) {
      await step('recent reconciler pass', () => reconcileOrphans({ full: false }));
      nextRecent = Date.now() + RECONCILE_EVERY_MS;
    }
    // A newer version that became the target is moved to at the next loop (RECONCILE_EVERY_MS at most).
    if (Date.now() - started >= HOUSEKEEPING_RUN_MS || workflowInfo().continueAsNewSuggested || targetVersionChanged()) {
      await continueAsNewOnTarget<typeof housekeeping>({ ...input, nextFullAt: new Date(nextFull).toISOString(), nextSweepAt: new Date(nextSweep).toISOString(), nextCrmSyncAt: new Date(nextCrmSync).toISOString(), nextRegistrationRefreshAt: new Date(nextRegistrations).toISOString() });
    }
    const wake = Math.min(nextRecent, nextFull, nextSweep, nextCrmSync, nextRegistrations, started + HOUSEKEEPING_RUN_MS);
    await condition(() => sweepAsked, Math.max(1, wake - Date.now()));
  }
}

async function step(name: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    log.warn(`Housekeeping: the ${name} failed; the next one covers it`, { error: error.cause?.message ?? error.message });
  }
}
