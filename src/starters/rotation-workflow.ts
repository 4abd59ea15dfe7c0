import type { Client as TemporalClient, WorkflowHandle } from '@temporalio/client';
import {
  REQUEST_ID_MEMO,
  ROTATION_WORKFLOW,
  rotationAppliedUpdate,
  rotationChangedSignal,
  rotationWorkflowId,
  type RotationInput,
  type RotationWorkflow,
} from '../domain';
import { searchAttributesOf } from './search-attributes';

/* The one place a rotation's workflow (`rotation`) is started, woken or asked to apply a version. */

export interface RotationRef {
  business: string;
  clientPk: string;
  rotationKey: string;
  /** The client's id, for the BusinessName/ClientId search attributes only (not in the input). */
  clientId: string;
}

/** Starts the (client, user) rotation workflow, or tells the running one to re-read its row. */
export async function startOrWakeRotation(temporal: TemporalClient, taskQueue: string, ref: RotationRef, requestId?: string) {
  const input: RotationInput = { business: ref.business, clientPk: ref.clientPk, rotationKey: ref.rotationKey };
  return temporal.workflow.signalWithStart<RotationWorkflow, []>(ROTATION_WORKFLOW, {
    workflowId: rotationWorkflowId(input),
    taskQueue,
    args: [input],
    signal: rotationChangedSignal,
    signalArgs: [],
    typedSearchAttributes: searchAttributesOf({ business: ref.business, clientId: ref.clientId }),
    ...(requestId && { memo: { [REQUEST_ID_MEMO]: requestId } }),
    staticSummary: `Agent rotation on client ${ref.clientId}: hands each period to the next agent (current and next in the details)`,
  });
}

/** Waits until the workflow has applied the rotation's `version` (handed out what is due now). */
export async function rotationApplied(handle: WorkflowHandle<RotationWorkflow>, version: number): Promise<void> {
  await handle.executeUpdate(rotationAppliedUpdate, { args: [version] });
}

/**
 * Tells the running rotation workflow to re-read its row (after a stop). Best effort: stopped is the
 * answer, and a workflow that missed the signal stops at its next boundary, where it reads the row.
 */
export async function wakeRotation(temporal: TemporalClient, input: RotationInput, log?: (error: unknown) => void): Promise<void> {
  try {
    await temporal.workflow.getHandle(rotationWorkflowId(input)).signal(rotationChangedSignal);
  } catch (error) {
    if ((error as Error).name !== 'WorkflowNotFoundError') log?.(error);
  }
}
