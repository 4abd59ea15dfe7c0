import { defineSignal } from '@temporalio/workflow';

export interface ReconcileInput {
  /** Rows changed more recently than this are left alone: they may still be on their way to Temporal. Default one minute. */
  graceMs?: number;
  /** Only this business's rows (an operator looking after one tenant, or a test); all by default. */
  business?: string;
  /**
   * A full pass reads every active row and lists every running workflow; a recent one only the rows
   * changed in the last `windowMs` and the runs that ended abnormally in it. The housekeeping run makes
   * recent passes, and a full one every few hours (src/workflows/housekeeping/housekeeping.ts); a pass started by hand is full unless told otherwise.
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
  /** Routing decisions whose owner has not answered yet, under a policy with `first_response_within`. */
  firstResponseClocksChecked: number;
  firstResponseClocksRestarted: number;
  /** Routing policies with clients waiting since before the grace period, and those whose queue workflow was started again. */
  routingQueuesChecked: number;
  routingQueuesRestarted: number;
  /** Conversations with a clock (snoozed, or waiting under a reply clock), and those whose client's run was started again to hold it (absent in results of older builds). */
  snoozesChecked?: number;
  snoozesRestarted?: number;
}

export const RECONCILE_WORKFLOW = 'reconcile';

/**
 * The service's upkeep, one long-running run per task queue: a recent reconciler pass every
 * RECONCILE_EVERY_MS, a full one every FULL_RECONCILE_EVERY_MS, the webhook sweep every `sweepEveryMs`
 * and whenever it is signaled (`sweepWebhooksSignal`); it continues as new every HOUSEKEEPING_RUN_MS, so
 * the workflow list gains two housekeeping runs a day instead of one every two minutes.
 */
export const HOUSEKEEPING_WORKFLOW = 'housekeeping';
export const housekeepingWorkflowId = (taskQueue: string) => `housekeeping/${taskQueue}`;
export const HOUSEKEEPING_RUN_MS = 12 * 60 * 60 * 1000;

export interface HousekeepingInput {
  /** The webhook sweep's own period (its backstop; deliveries left behind signal it sooner) and grace. */
  sweepEveryMs: number;
  sweepGraceMs: number;
  /** Carried over continue-as-new: when the next full pass and the next sweep are due, ISO 8601. */
  nextFullAt?: string;
  nextSweepAt?: string;
  /** When the next CRM catch-up sweep is due, ISO 8601 (carried over continue-as-new). */
  nextCrmSyncAt?: string;
  /** When the numbers' A2P registrations are next read from their carriers, ISO 8601 (carried over continue-as-new). */
  nextRegistrationRefreshAt?: string;
}

/** The numbers' A2P registrations are read again this often (issue 51): each number read longer ago than this. */
export const REGISTRATION_REFRESH_EVERY_MS = 60 * 60 * 1000;
/** Numbers read per refresh at most: the ones read longest ago (never read first); the next hour takes the rest. */
export const REGISTRATION_REFRESH_LIMIT = 500;

/** The CRM connectors' catch-up sweep runs this often (issue 32 § 4). */
export const CRM_SYNC_EVERY_MS = 60 * 60 * 1000;

/** Deliveries wait to be handed over: the housekeeping run sweeps now rather than at its next hour. */
export const sweepWebhooksSignal = defineSignal('sweepWebhooks');
/** The Schedules that ran the reconciler before the housekeeping run: removed at a worker's start. */
export const reconcileScheduleId = (taskQueue: string) => `reconcile/${taskQueue}`;
export const fullReconcileScheduleId = (taskQueue: string) => `reconcile-full/${taskQueue}`;
/** How often the reconciler runs: a row left without its workflow gets it back within minutes. */
export const RECONCILE_EVERY_MS = 2 * 60 * 1000;
/** A recent pass looks back over three intervals, so that a pass or two skipped (overlap, a worker restart) loses nothing. */
export const RECENT_RECONCILE_WINDOW_MS = 3 * RECONCILE_EVERY_MS;
/** How often a pass is full: what a recent pass cannot see (a row older than its window whose run vanished without ending, as when Temporal's data was lost) is found within this time. */
export const FULL_RECONCILE_EVERY_MS = 6 * 60 * 60 * 1000;
