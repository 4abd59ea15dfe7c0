export interface ReconcileInput {
  /** Rows changed more recently than this are left alone: they may still be on their way to Temporal. Default one minute. */
  graceMs?: number;
  /** Only this business's rows (an operator looking after one tenant, or a test); all by default. */
  business?: string;
  /**
   * A full pass reads every active row and lists every running workflow; a recent one only the rows
   * changed in the last `windowMs` and the runs that ended abnormally in it. One Schedule runs recent
   * passes, another full ones (src/starters/reconcile-schedule.ts); a pass started by hand is full unless told otherwise.
   */
  full?: boolean;
  windowMs?: number;
}

/** What one pass of the reconciler found and did; the run's result in the Temporal UI. */
export interface ReconcileResult {
  full: boolean;
  assignmentsChecked: number;
  assignmentsRestarted: number;
  messagesChecked: number;
  messagesRestarted: number;
  rotationsChecked: number;
  rotationsRestarted: number;
}

export const RECONCILE_WORKFLOW = 'reconcile';
/** One schedule per task queue: each deployment reconciles the rows its workers serve. */
export const reconcileScheduleId = (taskQueue: string) => `reconcile/${taskQueue}`;
export const fullReconcileScheduleId = (taskQueue: string) => `reconcile-full/${taskQueue}`;
/** How often the reconciler runs: a row left without its workflow gets it back within minutes. */
export const RECONCILE_EVERY_MS = 2 * 60 * 1000;
/** A recent pass looks back over three intervals, so that a pass or two skipped (overlap, a worker restart) loses nothing. */
export const RECENT_RECONCILE_WINDOW_MS = 3 * RECONCILE_EVERY_MS;
/** How often a pass is full: what a recent pass cannot see (a row older than its window whose run vanished without ending, as when Temporal's data was lost) is found within this time. */
export const FULL_RECONCILE_EVERY_MS = 6 * 60 * 60 * 1000;
