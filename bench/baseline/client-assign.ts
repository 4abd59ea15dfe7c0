import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { RAW_TASK_QUEUE } from './worker';
import { rawClientAssignUpdate, type rawClientWorkflow } from './workflows';

/** One day: the assignment's end, far beyond any bench run, so the run's one timer never fires while measured. */
const ASSIGNMENT_MS = 24 * 3600_000;

/**
 * Raw Update-with-Start of a client's run (`bench-client/<client>`): starts it when it is not running
 * (conflict policy USE_EXISTING), sends its `assign` update and waits for the answer.
 */
export function rawClientAssign(temporal: Client, client: string, requestId: string): Promise<string> {
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof rawClientWorkflow>('rawClientWorkflow', {
    workflowId: `bench-client/${client}`,
    taskQueue: RAW_TASK_QUEUE,
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return temporal.workflow.executeUpdateWithStart(rawClientAssignUpdate, { args: [{ requestId, dtUntil: Date.now() + ASSIGNMENT_MS }], startWorkflowOperation });
}
