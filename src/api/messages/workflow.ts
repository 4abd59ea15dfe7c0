import type { Client as TemporalClient } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import { startWithinBudget } from '../../temporal/availability';
import { messageWorkflowOptions, type ScheduledMessage } from '../../temporal/message-workflow';
import { sendMessage } from '../../workflows';
import { messageChangedSignal } from '../../workflows/definitions';

export { messageWorkflowOptions, type ScheduledMessage };

/**
 * Starts the message's workflow, or finds it running. A closed one is never started again (the id is
 * not reusable), so starting twice — a replayed Idempotency-Key healing a crash — is harmless.
 */
export async function startMessageWorkflow(temporal: TemporalClient, taskQueue: string, message: ScheduledMessage): Promise<void> {
  try {
    await startWithinBudget(temporal, () => temporal.workflow.start(sendMessage, messageWorkflowOptions(taskQueue, message)));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Tells the workflow to re-read its row. A closed one has nothing left to send; a later one reads the row before it sends. */
export async function notifyMessageWorkflow(temporal: TemporalClient, workflowId: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(workflowId).signal(messageChangedSignal);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
