import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

/** How a message's run failed (docs/operations.md, "Reading runs"): its ApplicationFailure; throws when the run completed. */
export async function runFailure(handle: WorkflowHandle): Promise<ApplicationFailure> {
  const error = await handle.result().then(
    (result) => new Error(`the run completed with ${JSON.stringify(result)}`),
    (failure: unknown) => failure,
  );
  if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure) return error.cause;
  throw error;
}
