export interface ReconcileInput {
  /** Rows changed more recently than this are left alone: they may still be on their way to Temporal. Default one minute. */
  graceMs?: number;
  /** Only this business's rows (an operator looking after one tenant, or a test); all by default. */
  business?: string;
}

/** What one pass of the reconciler found and did; the run's result in the Temporal UI. */
export interface ReconcileResult {
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
/** How often the reconciler runs: a row left without its workflow gets it back within minutes. */
export const RECONCILE_EVERY_MS = 2 * 60 * 1000;
