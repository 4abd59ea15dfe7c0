import { heartbeat } from '@temporalio/activity';
import type { Client as TemporalClient } from '@temporalio/client';
import { WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/common';
import { activeAssignmentsChangedBefore } from '../db/assignments';
import { unsentMessagesCreatedBefore } from '../db/messages';
import { activeRotationsChangedBefore } from '../db/rotations';
import type { Prisma } from '../db/prisma';
import { logEvent, logger } from '../logger';
import { messageWorkflowOptions } from '../temporal/message-workflow';
import { startOrWakeRotation } from '../temporal/rotation-workflow';
import {
  ASSIGNMENT_EXPIRY_WORKFLOW,
  ROTATION_WORKFLOW,
  rotationWorkflowId,
  SEND_MESSAGE_WORKFLOW,
  type ReconcileInput,
  type ReconcileResult,
  type SendMessageWorkflow,
} from '../workflows/definitions';
import { startOrWakeExpiry } from './expiry-start';

export interface ReconcileDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/** Rows changed this recently may still be on their way to Temporal (a request between its write and its start). */
export const RECONCILE_GRACE_MS = 60_000;
const PAGE = 500;

/**
 * The ids of every running workflow of a type. Visibility lags a little behind, so a row whose id is
 * missing here is confirmed with `describe` before anything is started.
 */
async function runningIds(temporal: TemporalClient, workflowType: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const run of temporal.workflow.list({ query: `WorkflowType = '${workflowType}' AND ExecutionStatus = 'Running'`, pageSize: 1000 })) {
    ids.add(run.workflowId);
  }
  return ids;
}

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

export function createReconcileActivities({ prisma, temporal, taskQueue }: ReconcileDeps) {
  return {
    /**
     * Gives every active assignment, unsent message and active rotation a running workflow again, after an
     * operator's Terminate (or a reset to a point that ended the run) left a row without one: the row is
     * the truth, the workflow its clock. Each restart is logged with what the last run's state was.
     */
    async reconcileOrphans({ graceMs = RECONCILE_GRACE_MS, business }: ReconcileInput = {}): Promise<ReconcileResult> {
      const before = new Date(Date.now() - graceMs);
      const result: ReconcileResult = {
        assignmentsChecked: 0,
        assignmentsRestarted: 0,
        messagesChecked: 0,
        messagesRestarted: 0,
        rotationsChecked: 0,
        rotationsRestarted: 0,
      };

      const runningExpiries = await runningIds(temporal, ASSIGNMENT_EXPIRY_WORKFLOW);
      for (let afterId: string | undefined; ; ) {
        const rows = await activeAssignmentsChangedBefore(prisma, { before, business }, afterId, PAGE);
        if (rows.length === 0) break;
        afterId = rows[rows.length - 1].id;
        result.assignmentsChecked += rows.length;
        for (const row of rows) {
          if (runningExpiries.has(row.workflowId)) continue;
          const lastRun = await runState(temporal, row.workflowId);
          if (lastRun === 'running') continue;
          await startOrWakeExpiry(temporal, taskQueue, row.workflowId, {
            business: row.client.business,
            clientId: row.client.id,
            agentId: row.agent.id,
            clientPk: row.clientPk,
            agentPk: row.agentPk,
            dtUntil: row.dtUntil.toISOString(),
          });
          result.assignmentsRestarted++;
          logEvent('reconciler.assignment_restarted', { workflowId: row.workflowId, lastRun });
        }
        heartbeat(result);
      }

      const runningMessages = await runningIds(temporal, SEND_MESSAGE_WORKFLOW);
      for (let afterId: string | undefined; ; ) {
        const rows = await unsentMessagesCreatedBefore(prisma, { before, business }, afterId, PAGE);
        if (rows.length === 0) break;
        afterId = rows[rows.length - 1].id;
        result.messagesChecked += rows.length;
        for (const row of rows) {
          if (runningMessages.has(row.workflowId)) continue;
          const lastRun = await runState(temporal, row.workflowId);
          if (lastRun === 'running') continue;
          if (lastRun === 'completed') {
            // A run that completed left its row as it found it: nothing to restart, and nobody to send it twice.
            logger.warn({ event: 'reconciler.message_completed_unsent', workflowId: row.workflowId });
            continue;
          }
          await temporal.workflow.start<SendMessageWorkflow>(SEND_MESSAGE_WORKFLOW, {
            ...messageWorkflowOptions(taskQueue, { ...row, clientId: row.client?.id ?? null }),
            // A terminated, canceled or failed run may be followed by a new one; a completed one may not.
            workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
          });
          result.messagesRestarted++;
          logEvent('reconciler.message_restarted', { workflowId: row.workflowId, lastRun });
        }
        heartbeat(result);
      }

      // An active rotation without a running workflow has lost its clock (a Terminate, or a PUT whose
      // start found Temporal down); the new run hands out what is due from the schedule.
      const runningRotations = await runningIds(temporal, ROTATION_WORKFLOW);
      for (let afterKey: string | undefined; ; ) {
        const rows = await activeRotationsChangedBefore(prisma, { before, business }, afterKey, PAGE);
        if (rows.length === 0) break;
        afterKey = rows[rows.length - 1].key;
        result.rotationsChecked += rows.length;
        for (const row of rows) {
          const workflowId = rotationWorkflowId({ business: row.business, clientPk: row.clientPk, rotationKey: row.key });
          if (runningRotations.has(workflowId)) continue;
          const lastRun = await runState(temporal, workflowId);
          if (lastRun === 'running') continue;
          await startOrWakeRotation(temporal, taskQueue, { business: row.business, clientPk: row.clientPk, rotationKey: row.key, clientId: row.client.id });
          result.rotationsRestarted++;
          logEvent('reconciler.rotation_restarted', { workflowId, lastRun });
        }
        heartbeat(result);
      }
      return result;
    },
  };
}
