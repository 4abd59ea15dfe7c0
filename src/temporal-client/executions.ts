import type { Client as TemporalClient } from '@temporalio/client';

/** One run a visibility query found: its ids only. */
export interface ExecutionIds {
  workflowId: string;
  runId: string;
}

/**
 * The runs a visibility query finds, page after page, as raw ids: a run whose memo this client cannot
 * decode (a retired payload key) does not stop the listing, as `client.workflow.list` would.
 */
export async function* executionsOf(temporal: TemporalClient, query: string): AsyncGenerator<ExecutionIds> {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await temporal.workflowService.listWorkflowExecutions({ namespace: temporal.options.namespace, query, pageSize: 1000, nextPageToken });
    for (const { execution } of page.executions ?? []) if (execution?.workflowId && execution.runId) yield { workflowId: execution.workflowId, runId: execution.runId };
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
}
