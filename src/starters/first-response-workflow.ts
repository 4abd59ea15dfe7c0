import { WorkflowExecutionAlreadyStartedError, type Client as TemporalClient } from '@temporalio/client';
import { FIRST_RESPONSE_WORKFLOW, firstResponseAnsweredSignal, firstResponseWorkflowId, type FirstResponseInput, type FirstResponseWorkflow } from '../domain';
import { searchAttributesOf } from './search-attributes';

/* The one place a routing decision's first-response clock (`routingFirstResponse`) is started or told of an answer. */

/** Starts the decision's clock; one already running (a repeated start after a retry) is left as it is. */
export async function startFirstResponseClock(temporal: TemporalClient, taskQueue: string, input: FirstResponseInput): Promise<void> {
  try {
    await temporal.workflow.start<FirstResponseWorkflow>(FIRST_RESPONSE_WORKFLOW, {
      workflowId: firstResponseWorkflowId(input),
      taskQueue,
      args: [input],
      typedSearchAttributes: searchAttributesOf({ business: input.business }),
      staticSummary: 'First response of a routed client: reassigns it when its owner does not answer in time',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** The owner answered: the clock ends now rather than at its deadline. Best effort: at the deadline it reads the row anyway. */
export async function signalFirstResponseAnswered(temporal: TemporalClient, input: FirstResponseInput): Promise<void> {
  try {
    await temporal.workflow.getHandle(firstResponseWorkflowId(input)).signal(firstResponseAnsweredSignal);
  } catch {
    // Not running (ended, or never started): nothing waits for the answer.
  }
}
