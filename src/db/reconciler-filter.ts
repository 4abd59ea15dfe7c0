/** Which rows a pass of the reconciler reads (src/activities/housekeeping/reconcile.ts, through src/use-cases/housekeeping/orphan-rows.ts). */
export interface ReconcilerFilter {
  /** Rows changed since then may still be on their way to Temporal: left for the next pass. */
  before: Date;
  /** A recent pass reads only rows changed since then; a full pass reads them all. */
  since?: Date;
  business?: string;
  /** Only rows whose workflow start was never confirmed (messages): what a request that died mid-way leaves. */
  unconfirmedOnly?: boolean;
  /** Only the rows of these workflows (runs that ended abnormally). */
  workflowIds?: string[];
}
