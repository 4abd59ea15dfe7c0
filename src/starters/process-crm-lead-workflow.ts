import type { Client as TemporalClient } from '@temporalio/client';
import { crmClientId, crmRecordOfClientId, crmEventRecordedSignal, crmLeadWorkflowId, PROCESS_CRM_LEAD_WORKFLOW, type ProcessCrmLeadInput, type ProcessCrmLeadWorkflow } from '../domain';
import { searchAttributesOf } from './search-attributes';

/* The one place a CRM lead's workflow (`processCrmLead`) is started or woken. */

/**
 * Wakes the record's running workflow with the news that an event about it was recorded, or starts
 * one: either way a run reads the event from PostgreSQL. Ids only cross into Temporal.
 */
export function signalCrmLeadWorkflow(temporal: TemporalClient, taskQueue: string, input: ProcessCrmLeadInput) {
  return temporal.workflow.signalWithStart<ProcessCrmLeadWorkflow, []>(PROCESS_CRM_LEAD_WORKFLOW, {
    workflowId: crmLeadWorkflowId(input),
    taskQueue,
    args: [input],
    signal: crmEventRecordedSignal,
    signalArgs: [],
    typedSearchAttributes: searchAttributesOf({ business: input.business, clientId: crmClientId(input.crm, input.recordId) }),
    staticSummary: `Lead ${input.crm} ${input.recordId}`,
  });
}

/**
 * The routing queue assigned a client: when it is a CRM lead waiting for that, its run looks now
 * instead of at its next poll. Best effort: nothing to wake is fine.
 */
export async function wakeQueuedCrmLead(temporal: TemporalClient, business: string, clientId: string): Promise<void> {
  const record = crmRecordOfClientId(clientId);
  if (!record) return;
  const input = { business, ...record };
  await temporal.workflow
    .getHandle(crmLeadWorkflowId(input))
    .signal(crmEventRecordedSignal)
    .catch(() => undefined);
}

/**
 * An assignment of this client ended: when it is a CRM lead's, its run (started if none is running)
 * reads the `holder_changed` event the ending recorded. Best effort: the hourly sweep hands over an
 * event left unhandled.
 */
export async function wakeCrmLeadOfClient(temporal: TemporalClient, taskQueue: string, business: string, clientId: string): Promise<void> {
  const record = crmRecordOfClientId(clientId);
  if (record) await signalCrmLeadWorkflow(temporal, taskQueue, { business, ...record }).catch(() => undefined);
}
