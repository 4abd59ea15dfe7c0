import type { Client as TemporalClient } from '@temporalio/client';
import { crmClientId, crmEventRecordedSignal, crmLeadWorkflowId, PROCESS_CRM_LEAD_WORKFLOW, type ProcessCrmLeadInput, type ProcessCrmLeadWorkflow } from '../domain';
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
