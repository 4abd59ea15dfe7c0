import type { Client as TemporalClient } from '@temporalio/client';
import { createReconcileActivities } from '../activities/housekeeping/reconcile';
import { beginRunUpgrade, finishRunUpgrade, runUpgradeOf } from '../db/run-upgrades';
import type { Prisma } from '../db/prisma';
import { RUN_GENERATION, type ReconcileResult } from '../domain';
import { endRunsOfEarlierGeneration } from '../starters/run-upgrade';
import { resumeUnhandledLeads } from '../use-cases/integrations/sync';
import { logEvent, logger } from '../logger';

/*
 * The upgrade of a database's runs to this build's workflow generation (docs/design.md, "Upgrading runs
 * from before Worker Versioning"; docs/operations.md, "Upgrading from a build before Worker Versioning"):
 * the open runs of the earlier generation end, then the reconciler starts their clocks again from the
 * rows. Once per database: `run_upgrades` records it. Safe to run twice, and from several workers at once.
 */

/**
 * What the upgrade works on. It covers every business, whatever RECONCILE_BUSINESSES says: the runs it
 * ends are those of the whole task queue, so the pass that restarts them reads every business's rows.
 */
export interface RunUpgradeDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

export type RunUpgradeReport =
  | { generation: number; upgraded: false }
  | { generation: number; upgraded: true; runsEnded: number; reconciled: ReconcileResult; leadsResumed: number };

/** The upgrade's first half: the earlier generation's runs end. Returns null when the database was upgraded already. */
export async function endEarlierRuns(deps: RunUpgradeDeps, now = new Date()): Promise<{ runsEnded: number } | null> {
  const upgrade = await beginRunUpgrade(deps.prisma, RUN_GENERATION, now);
  if (upgrade.finishedAt) return null;
  return { runsEnded: await endRunsOfEarlierGeneration(deps.temporal, deps.taskQueue, upgrade.cutoff) };
}

/**
 * The second half: a full reconciler pass with no grace (every row whose run ended is started again, the
 * rows changed a moment ago included), and every CRM lead with an event not yet handled handed to its
 * run again; then the upgrade is recorded as done.
 */
export async function restartFromRows(deps: RunUpgradeDeps): Promise<{ reconciled: ReconcileResult; leadsResumed: number }> {
  const reconciler = createReconcileActivities({ prisma: deps.prisma, temporal: deps.temporal, taskQueue: deps.taskQueue, heartbeat: () => undefined });
  const reconciled = await reconciler.reconcileOrphans({ full: true, graceMs: 0 });
  const leadsResumed = await resumeUnhandledLeads(deps);
  await finishRunUpgrade(deps.prisma, RUN_GENERATION, new Date());
  return { reconciled, leadsResumed };
}

/** Both halves at once (`npm run upgrade-runs`, and a test); a database already upgraded is left as it is. */
export async function upgradeRuns(deps: RunUpgradeDeps): Promise<RunUpgradeReport> {
  const ended = await endEarlierRuns(deps);
  if (!ended) return { generation: RUN_GENERATION, upgraded: false };
  return { generation: RUN_GENERATION, upgraded: true, ...ended, ...(await restartFromRows(deps)) };
}

/**
 * A worker's first start on a database of an earlier generation: the earlier runs end before it polls
 * (`endEarlierRuns`, awaited by the caller), and this starts their clocks again once it does, in the
 * background (a full pass over a large database takes minutes). A failure is logged; the next start
 * (or `npm run upgrade-runs`) finishes the upgrade, and the housekeeping run's passes restart the rows meanwhile.
 */
export function finishUpgradeInBackground(deps: RunUpgradeDeps, runsEnded: number): Promise<void> {
  return restartFromRows(deps).then(
    ({ reconciled, leadsResumed }) => logEvent('runs.upgraded', { generation: RUN_GENERATION, runsEnded, reconciled, leadsResumed }),
    (error: unknown) => logger.warn({ event: 'runs.upgrade_failed', err: error }, 'the runs of the earlier generation ended; their clocks start again at the next start or npm run upgrade-runs'),
  );
}

/** Whether this database's runs are of this build's generation. */
export async function runsUpgraded(prisma: Prisma): Promise<boolean> {
  return Boolean((await runUpgradeOf(prisma, RUN_GENERATION))?.finishedAt);
}
