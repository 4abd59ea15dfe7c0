import type { Client } from '@temporalio/client';
import { eventually } from './helpers';

/**
 * Until the visibility listing no longer shows `workflowId` running. The reconciler finds the runs an operator
 * ended through that listing, which follows a Terminate a moment later, more under load: a pass run at once
 * would still see the run and leave its rows alone until the next pass.
 */
export async function untilListedEnded(temporal: Client, workflowId: string): Promise<void> {
  const query = `WorkflowId = '${workflowId}' AND ExecutionStatus = 'Running'`;
  await eventually(async () => ((await temporal.workflow.count(query)).count === 0 ? true : undefined), 20_000, 100);
}
