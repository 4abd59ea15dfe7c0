import { CancellationScope, createNexusServiceClient } from '@temporalio/workflow';
import { crmProblemOf, crmService, type CrmProblem } from '../../src/nexus/contract';

export { dealWon } from '../../examples/deal-won/workflows';

/* Caller workflows for the tests, run in another namespace than the CRM's. */

type Operation = keyof typeof crmService.operations;

export interface Call {
  operation: Operation;
  input: unknown;
}

/** What a failed call showed the caller: the problem, and each link of the failure's cause chain. */
export interface CallFailure {
  problem?: CrmProblem;
  chain: { name: string; message: string; type?: string; nonRetryable?: boolean; stack?: string }[];
}

export type CallOutcome = { ok: unknown } | { failed: CallFailure };

function failureOf(error: unknown): CallFailure {
  const chain: CallFailure['chain'] = [];
  for (let cause = error as any; cause instanceof Error; cause = (cause as any).cause) {
    chain.push({ name: cause.name, message: cause.message, type: (cause as any).type, nonRetryable: (cause as any).nonRetryable, stack: cause.stack });
  }
  return { problem: crmProblemOf(error), chain };
}

/** Runs the calls side by side and reports each one's output or failure. */
export async function callCrm(endpoint: string, calls: Call[]): Promise<CallOutcome[]> {
  const crm = createNexusServiceClient({ endpoint, service: crmService });
  return Promise.all(
    calls.map(async ({ operation, input }): Promise<CallOutcome> => {
      try {
        return { ok: await crm.executeOperation(operation, input as never, { scheduleToCloseTimeout: '1 minute' }) };
      } catch (error) {
        return { failed: failureOf(error) };
      }
    }),
  );
}

/** Starts sendMessage, then cancels the operation (as a caller whose own work was canceled would). */
export async function sendThenCancel(endpoint: string, input: unknown): Promise<CallOutcome> {
  const crm = createNexusServiceClient({ endpoint, service: crmService });
  const scope = new CancellationScope();
  const result = scope.run(async () => {
    const handle = await crm.startOperation('sendMessage', input as never, { scheduleToCloseTimeout: '1 hour' });
    scope.cancel();
    return handle.result();
  });
  try {
    return { ok: await result };
  } catch (error) {
    return { failed: failureOf(error) };
  }
}
