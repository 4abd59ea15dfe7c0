import type { Client } from '@temporalio/client';
import { eventually } from './helpers';

/** Every string in a value, with byte arrays (payload data, metadata) decoded as UTF-8. */
function textsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (value instanceof Uint8Array) into.push(Buffer.from(value).toString('utf8'));
  else if (Array.isArray(value)) for (const item of value) textsOf(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) textsOf(item, into);
  return into;
}

/**
 * All that Temporal keeps of one workflow, as text: its id, search attributes, memo and summary,
 * and every payload and string of its history (inputs, results, markers, failures, signals).
 */
export async function temporalTextOf(temporal: Client, workflowId: string): Promise<string> {
  const handle = temporal.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const history = await handle.fetchHistory();
  return [
    workflowId,
    JSON.stringify(description.searchAttributes),
    JSON.stringify(description.typedSearchAttributes),
    JSON.stringify(description.memo),
    JSON.stringify(await description.staticSummary()),
    ...textsOf(description.raw),
    ...textsOf(history),
  ].join('\n');
}

/** The ids of the runs that carry this business's search attribute, once at least `atLeast` are listed. */
export async function workflowIdsOfBusiness(temporal: Client, business: string, atLeast: number): Promise<string[]> {
  return eventually(async () => {
    const ids: string[] = [];
    for await (const run of temporal.workflow.list({ query: `BusinessName = '${business}'` })) ids.push(run.workflowId);
    return ids.length >= atLeast ? ids : undefined;
  });
}
