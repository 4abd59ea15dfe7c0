import { heartbeat as activityHeartbeat } from '@temporalio/activity';
import type { Client as TemporalClient } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { executionsOf } from '../../temporal-client/executions';
import { wakeRoutingQueue } from '../../starters/routing-queue-workflow';
import { startFirstResponseClock } from '../../starters/first-response-workflow';
import type { DatabaseDeps } from '../../use-cases/database';
import { orphanCandidates, type ReconcilerFilter } from '../../use-cases/housekeeping/orphan-rows';
import { logEvent, logger } from '../../logger';
import { restartMessageWorkflow } from '../../starters/send-message-workflow';
import { restartMessageBatchWorkflow } from '../../starters/send-message-batch-workflow';
import { wakeClientRun } from '../../starters/client-workflow';
import {
  clientWorkflowId,
  routingQueueWorkflowId,
  CLIENT_WORKFLOW,
  RECENT_RECONCILE_WINDOW_MS,
  SEND_MESSAGE_BATCH_WORKFLOW,
  SEND_MESSAGE_WORKFLOW,
  type ReconcileInput,
  type ReconcileResult,
} from '../../domain';
import { startOrWakeExpiry } from '../../starters/assignment-expiry-workflow';

export interface ReconcileDeps extends DatabaseDeps {
  temporal: TemporalClient;
  taskQueue: string;
  /** Told of each restart as it happens (the worker's crm_reconciler_restarts_total). */
  observeReconcilerRestart?: (kind: 'assignment' | 'message' | 'rotation') => void;
  /** The businesses a pass without a `business` of its own covers (RECONCILE_BUSINESSES); every business when unset. */
  reconcileBusinesses?: readonly string[];
  /** Reports progress: the activity's heartbeat, unless the pass runs outside an activity (the upgrade of runs, src/worker/run-upgrade.ts). */
  heartbeat?: (details: unknown) => void;
}

/** Rows changed this recently may still be on their way to Temporal (a request between its write and its start). */
export const RECONCILE_GRACE_MS = 60_000;
const PAGE = 500;

/** The ids of the workflows a visibility query finds (it lags a little: a missing id is confirmed with `describe`). */
async function workflowIds(temporal: TemporalClient, query: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const { workflowId } of executionsOf(temporal, query)) ids.add(workflowId);
  return ids;
}

/** The rows of a query paged by key, a page at a time, until one comes back empty. */
async function* keyPages<T>(page: (after: string | undefined) => Promise<T[]>, keyOf: (row: T) => string): AsyncGenerator<T[]> {
  for (let after: string | undefined; ; ) {
    const rows = await page(after);
    if (rows.length === 0) return;
    after = keyOf(rows[rows.length - 1]);
    yield rows;
  }
}

/** Running workflows of a type (started since `since`, when given). */
const runningIds = (temporal: TemporalClient, workflowType: string, since?: Date) =>
  workflowIds(temporal, `WorkflowType = '${workflowType}' AND ExecutionStatus = 'Running'${since ? ` AND StartTime >= '${since.toISOString()}'` : ''}`);

/** Runs of a type that an operator or a failure ended since `since`: what leaves a row without its workflow. */
const endedAbnormallyIds = (temporal: TemporalClient, workflowType: string, since: Date) =>
  workflowIds(
    temporal,
    `WorkflowType = '${workflowType}' AND CloseTime >= '${since.toISOString()}' AND (ExecutionStatus = 'Terminated' OR ExecutionStatus = 'Canceled' OR ExecutionStatus = 'Failed' OR ExecutionStatus = 'TimedOut')`,
  );

/** 'running', or how the last run under the id ended ('none' when there never was one). */
async function runState(temporal: TemporalClient, workflowId: string): Promise<string> {
  try {
    const described = await temporal.workflow.getHandle(workflowId).describe();
    return described.status.name === 'RUNNING' ? 'running' : described.status.name.toLowerCase();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'none';
    throw error;
  }
}

type ReadRows<Row> = (filter: ReconcilerFilter, afterId: string | undefined, take: number) => Promise<Row[]>;

/**
 * The rows a pass checks, a page at a time: in a full pass every row of `filter`; in a recent one the
 * rows changed since `since` and the rows of the runs that ended abnormally since then, each once.
 */
async function* candidateRows<Row extends { id: string }>(read: ReadRows<Row>, filter: ReconcilerFilter, ended: Set<string> | undefined) {
  const filters: ReconcilerFilter[] = [filter];
  if (ended) {
    const { since: _since, unconfirmedOnly: _unconfirmedOnly, ...withoutSince } = filter;
    const ids = [...ended];
    for (let i = 0; i < ids.length; i += PAGE) filters.push({ ...withoutSince, workflowIds: ids.slice(i, i + PAGE) });
  }
  const seen = new Set<string>();
  for (const pageFilter of filters) {
    for (let afterId: string | undefined; ; ) {
      const rows = await read(pageFilter, afterId, PAGE);
      if (rows.length === 0) break;
      afterId = rows[rows.length - 1].id;
      yield rows.filter((row) => !seen.has(row.id) && seen.add(row.id));
    }
  }
}

interface ClockKind<Row> {
  pages: AsyncIterable<Row[]>;
  /** The run that holds the row's clock: the client's, or the one named on a row of data from before one run per client. */
  holderOf: (row: Row) => string;
  restart: (row: Row, holder: string, lastRun: string) => Promise<void>;
  onPage: (counts: { checked: number; restarted: number }) => void;
}

/**
 * The clocks of one kind (rotations, first responses) whose holder is not running: the client's run is
 * started (or told) once per client in a pass, and takes them over. A clock of a client whose run this
 * pass started already counts as restarted when its holder was not running: that new run takes it.
 */
async function reclaimClocks<Row extends { clientPk: string }>(temporal: TemporalClient, restartedClients: Set<string>, running: Set<string>, kind: ClockKind<Row>) {
  const counts = { checked: 0, restarted: 0 };
  for await (const rows of kind.pages) {
    counts.checked += rows.length;
    for (const row of rows) {
      const holder = kind.holderOf(row);
      if (running.has(holder)) continue;
      if (restartedClients.has(row.clientPk)) {
        counts.restarted++;
        continue;
      }
      const lastRun = await runState(temporal, holder);
      if (lastRun === 'running') continue;
      await kind.restart(row, holder, lastRun);
      restartedClients.add(row.clientPk);
      counts.restarted++;
    }
    kind.onPage(counts);
  }
  return counts;
}

const emptyResult = (full: boolean): ReconcileResult => ({
  full,
  assignmentsChecked: 0,
  assignmentsRestarted: 0,
  messagesChecked: 0,
  messagesRestarted: 0,
  rotationsChecked: 0,
  rotationsRestarted: 0,
  firstResponseClocksChecked: 0,
  firstResponseClocksRestarted: 0,
  routingQueuesChecked: 0,
  routingQueuesRestarted: 0,
  snoozesChecked: 0,
  snoozesRestarted: 0,
});

/** The counts of several passes (one per business of a scoped worker) as one pass's. */
function sumResults(full: boolean, results: ReconcileResult[]): ReconcileResult {
  const sum = emptyResult(full);
  const counts = Object.keys(sum).filter((key) => key !== 'full') as Exclude<keyof ReconcileResult, 'full'>[];
  for (const result of results) for (const key of counts) sum[key] = (sum[key] ?? 0) + (result[key] ?? 0);
  return sum;
}

export function createReconcileActivities({ prisma, temporal, taskQueue, observeReconcilerRestart, reconcileBusinesses, heartbeat = activityHeartbeat }: ReconcileDeps) {
  const activities = {
    /**
     * Gives every active assignment, unsent message, active rotation and snoozed conversation a running workflow again, after an
     * operator's Terminate (or a reset to a point that ended the run) left a row without one: the row is
     * the truth, the workflow its clock. Each restart is logged with what the last run's state was.
     * A full pass reads every active row and lists every running workflow, which at 100,000s of them
     * takes the server minutes; a recent pass (`full: false`) reads only the rows changed in the last
     * `windowMs` (of messages, only those whose start was never confirmed) and the runs that ended
     * abnormally in it.
     */
    async reconcilePass({ graceMs = RECONCILE_GRACE_MS, business, full = true, windowMs = RECENT_RECONCILE_WINDOW_MS }: ReconcileInput = {}): Promise<ReconcileResult> {
      const before = new Date(Date.now() - graceMs);
      const since = full ? undefined : new Date(before.getTime() - windowMs);
      const filter: ReconcilerFilter = { before, business, since };
      const orphans = orphanCandidates(prisma);
      const result = emptyResult(full);

      // A row's clock is its client's run (a row of data from before one run per client names the run that held it, until the client's run takes it over).
      const runningExpiries = await runningIds(temporal, CLIENT_WORKFLOW, since);
      const endedExpiries = since && (await endedAbnormallyIds(temporal, CLIENT_WORKFLOW, since));
      /** Clients whose run this pass started or told to re-read its rows. */
      const restartedClients = new Set<string>();
      for await (const rows of candidateRows(orphans.assignments, filter, endedExpiries)) {
        result.assignmentsChecked += rows.length;
        for (const row of rows) {
          if (runningExpiries.has(row.workflowId) || restartedClients.has(row.clientPk)) continue;
          const lastRun = await runState(temporal, row.workflowId);
          if (lastRun === 'running') continue;
          restartedClients.add(row.clientPk);
          await startOrWakeExpiry(temporal, taskQueue, row.workflowId, {
            business: row.client.business,
            clientId: row.client.id,
            agentId: row.agent.id,
            clientPk: row.clientPk,
            agentPk: row.agentPk,
            dtUntil: row.dtUntil.toISOString(),
          });
          result.assignmentsRestarted++;
          observeReconcilerRestart?.('assignment');
          logEvent('reconciler.assignment_restarted', { workflowId: row.workflowId, lastRun });
        }
        heartbeat(result);
      }

      // A recent pass reads only the messages whose start the API never confirmed (a request that died
      // between its insert and its start, or whose confirmation was lost) and looks each one's run up,
      // rather than listing every run of its window: after a burst that is tens of thousands of runs
      // (docs/performance.md). Confirmed rows whose run an operator ended come from `endedMessages`.
      const runningMessages = full ? await runningIds(temporal, SEND_MESSAGE_WORKFLOW) : new Set<string>();
      const endedMessages = since && new Set([...(await endedAbnormallyIds(temporal, SEND_MESSAGE_WORKFLOW, since)), ...(await endedAbnormallyIds(temporal, SEND_MESSAGE_BATCH_WORKFLOW, since))]);
      const batchRuns = new Set<string>();
      const messageFilter: ReconcilerFilter = { ...filter, unconfirmedOnly: !full };
      for await (const rows of candidateRows(orphans.messages, messageFilter, endedMessages)) {
        result.messagesChecked += rows.length;
        for (const row of rows) {
          if (runningMessages.has(row.workflowId) || batchRuns.has(row.workflowId)) continue;
          if (row.batchId) {
            // A batch's messages are its run's to send: one check per batch, and its own run restarted.
            const lastRun = await runState(temporal, row.workflowId);
            batchRuns.add(row.workflowId);
            if (lastRun === 'running' || lastRun === 'completed') continue;
            const batch = await orphans.batch(row.batchId);
            if (!batch || !(await restartMessageBatchWorkflow(temporal, taskQueue, { id: batch.id, business: batch.business, sendAt: batch.sendAt, accepted: batch.accepted }))) continue;
            result.messagesRestarted++;
            observeReconcilerRestart?.('message');
            logEvent('reconciler.message_batch_restarted', { workflowId: row.workflowId, lastRun });
            continue;
          }
          const lastRun = await runState(temporal, row.workflowId);
          if (lastRun === 'running') continue;
          if (lastRun === 'completed') {
            // A run that completed left its row as it found it: nothing to restart, and nobody to send it twice.
            logger.warn({ event: 'reconciler.message_completed_unsent', workflowId: row.workflowId });
            continue;
          }
          // The other pass (recent and full ones may overlap) may have restarted it first.
          if (!(await restartMessageWorkflow(temporal, taskQueue, { ...row, clientId: row.client?.id ?? null }))) continue;
          result.messagesRestarted++;
          observeReconcilerRestart?.('message');
          logEvent('reconciler.message_restarted', { workflowId: row.workflowId, lastRun });
        }
        heartbeat(result);
      }

      // An active rotation whose clock has no run (the client's run terminated, a PUT whose start found
      // Temporal down, or a row naming a run of data from before one run per client): the client's run is
      // started (or told), takes it over and hands out what is due from the schedule. Rotations are few (at
      // most one per client and user): every pass checks them all.
      const rotations = await reclaimClocks(temporal, restartedClients, runningExpiries, {
        pages: keyPages((after) => orphans.rotations({ before, business }, after, PAGE), (row) => row.key),
        holderOf: (row) => row.workflowId ?? clientWorkflowId({ business: row.business, clientId: row.client.id, clientPk: row.clientPk }),
        restart: async (row, holder, lastRun) => {
          await wakeClientRun(temporal, taskQueue, { business: row.business, clientId: row.client.id, clientPk: row.clientPk }, ['rotations']);
          observeReconcilerRestart?.('rotation');
          logEvent('reconciler.rotation_restarted', { workflowId: holder, lastRun });
        },
        onPage: (counts) => heartbeat({ ...result, rotationsChecked: counts.checked, rotationsRestarted: counts.restarted }),
      });
      result.rotationsChecked = rotations.checked;
      result.rotationsRestarted = rotations.restarted;

      // A routed client whose first-response clock has no run: the client's run was terminated, or never
      // started (Temporal unreachable just after the route's commit), or the row names a run of data from
      // before one run per client. The client's run is started (or told), and takes the clock over.
      const clocks = await reclaimClocks(temporal, restartedClients, runningExpiries, {
        pages: keyPages((after) => orphans.firstResponseClocks({ before, business }, after, PAGE), (row) => row.id),
        holderOf: (row) => row.clockWorkflowId ?? clientWorkflowId(row),
        restart: async (row, holder, lastRun) => {
          await startFirstResponseClock(temporal, taskQueue, row);
          logEvent('reconciler.first_response_clock_restarted', { workflowId: holder, decisionId: row.id, lastRun });
        },
        onPage: (counts) => heartbeat({ ...result, firstResponseClocksChecked: counts.checked, firstResponseClocksRestarted: counts.restarted }),
      });
      result.firstResponseClocksChecked = clocks.checked;
      result.firstResponseClocksRestarted = clocks.restarted;

      // A conversation with a clock (snoozed, or waiting under a reply clock) whose client's run is not running
      // (terminated, or its start found Temporal down): the run is started again and takes the clock over; one
      // already due acts at once. A recent pass checks those changed in its window, a full pass every one.
      const snoozes = await reclaimClocks(temporal, restartedClients, runningExpiries, {
        pages: keyPages((after) => orphans.conversationClocks({ before, since, business }, after, PAGE), (row) => row.id),
        holderOf: (row) => clientWorkflowId(row),
        restart: async (row, holder, lastRun) => {
          await wakeClientRun(temporal, taskQueue, row, ['conversations']);
          logEvent('reconciler.conversation_clock_restarted', { workflowId: holder, conversationId: row.id, lastRun });
        },
        onPage: (counts) => heartbeat({ ...result, snoozesChecked: counts.checked, snoozesRestarted: counts.restarted }),
      });
      result.snoozesChecked = snoozes.checked;
      result.snoozesRestarted = snoozes.restarted;

      // A policy with clients waiting and no queue run: the first waiting client's signal-with-start was
      // lost with its API process (killed between the commit and the start), or an operator terminated
      // the run. Policies are few: every pass checks them all.
      for (const policy of await orphans.waitingPolicies({ before, business })) {
        result.routingQueuesChecked++;
        const workflowId = routingQueueWorkflowId({ business: policy.business, policyKey: policy.pk });
        const lastRun = await runState(temporal, workflowId);
        if (lastRun === 'running') continue;
        await wakeRoutingQueue(temporal, taskQueue, { business: policy.business, policyKey: policy.pk, policyId: policy.id });
        result.routingQueuesRestarted++;
        logEvent('reconciler.routing_queue_restarted', { workflowId, lastRun });
      }
      return result;
    },
  };
  return {
    /**
     * One pass (see `reconcilePass`). A pass that names no business covers the worker's own businesses
     * when it has some (RECONCILE_BUSINESSES), one after the other, and reports their counts together.
     */
    async reconcileOrphans(input: ReconcileInput = {}): Promise<ReconcileResult> {
      if (input.business !== undefined || !reconcileBusinesses) return activities.reconcilePass(input);
      const results: ReconcileResult[] = [];
      for (const business of reconcileBusinesses) results.push(await activities.reconcilePass({ ...input, business }));
      return sumResults(input.full ?? true, results);
    },
  };
}
