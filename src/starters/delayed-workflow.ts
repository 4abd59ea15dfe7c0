import type { Client as TemporalClient, WorkflowStartOptions } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type SignalDefinition, type Workflow } from '@temporalio/common';
import { startWithinBudget } from './availability';

/*
 * A workflow run once per row and started with Temporal's start delay until the row is due (a message,
 * a batch): the start, the wake and the reconciler's restart every such workflow type needs, written
 * once. Each type's own module gives its name, its "re-read your row" signal and its start options.
 */

export interface DelayedWorkflow<T> {
  /** Starts the run, or finds it running. A closed one is never started again (the id is not reusable), so starting twice is harmless. */
  start(temporal: TemporalClient, taskQueue: string, row: T): Promise<void>;
  /**
   * Tells the run to re-read its row (after a cancel). Signal-with-start, because a plain signal to a run
   * still waiting on its start delay would wait with it; this one wakes it now, and starts a run that
   * never started (it finds the row done and ends). A closed run has nothing left to do.
   */
  wake(temporal: TemporalClient, taskQueue: string, row: T): Promise<void>;
  /**
   * The reconciler's start, for a row whose run was terminated, canceled or failed: a new run may follow
   * such a one; a completed one may not. False when another pass restarted it first.
   */
  restart(temporal: TemporalClient, taskQueue: string, row: T): Promise<boolean>;
}

export function delayedWorkflow<W extends Workflow, T>(
  type: string,
  changed: SignalDefinition<[]>,
  optionsOf: (taskQueue: string, row: T) => WorkflowStartOptions<W>,
): DelayedWorkflow<T> {
  const alreadyStarted = (error: unknown) => error instanceof WorkflowExecutionAlreadyStartedError;
  return {
    async start(temporal, taskQueue, row) {
      try {
        await startWithinBudget(temporal, () => temporal.workflow.start<W>(type, optionsOf(taskQueue, row)));
      } catch (error) {
        if (!alreadyStarted(error)) throw error;
      }
    },
    async wake(temporal, taskQueue, row) {
      const { startDelay: _delay, ...options } = optionsOf(taskQueue, row);
      try {
        // The start options are W's own; the generic W is more than the compiler can carry through the Omit.
        const withSignal = { ...options, signal: changed, signalArgs: [] } as unknown as Parameters<typeof temporal.workflow.signalWithStart<W, []>>[1];
        await temporal.workflow.signalWithStart<W, []>(type, withSignal);
      } catch (error) {
        if (!alreadyStarted(error)) throw error;
      }
    },
    async restart(temporal, taskQueue, row) {
      try {
        await temporal.workflow.start<W>(type, { ...optionsOf(taskQueue, row), workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY });
        return true;
      } catch (error) {
        if (alreadyStarted(error)) return false;
        throw error;
      }
    },
  };
}
