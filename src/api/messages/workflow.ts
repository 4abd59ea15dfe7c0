import type { Client as TemporalClient } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
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

/**
 * Tells the workflow to re-read its row (after a cancel). Signal-with-start, because a plain signal to a
 * run still waiting on its start delay would wait with it; this one wakes it now, and starts a run that
 * never started (it finds the row canceled and ends). A closed run has nothing left to send.
 */
export async function wakeMessageWorkflow(temporal: TemporalClient, taskQueue: string, message: ScheduledMessage): Promise<void> {
  const { startDelay: _delay, ...options } = messageWorkflowOptions(taskQueue, message);
  try {
    await temporal.workflow.signalWithStart(sendMessage, { ...options, signal: messageChangedSignal, signalArgs: [] });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
