import type { Client as TemporalClient } from '@temporalio/client';
import {
  REQUEST_ID_MEMO,
  ROTATION_WORKFLOW,
  rotationChangedSignal,
  rotationWorkflowId,
  type RotationInput,
  type RotationWorkflow,
} from '../workflows/definitions';
import { searchAttributesOf } from './search-attributes';

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
