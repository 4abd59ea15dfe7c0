import { ApplicationFailure } from '@temporalio/common';
import { ActivityFailureType } from '../../domain';
import { Conflict } from '../../use-cases/errors';
import type { CarrierRejection } from './carrier';

/** A check before the hand-over that no retry can heal (a Conflict): refused for good, like a carrier's refusal, under `code` (or the code it gives the refusal). */
export async function refusedForGood<T>(code: string | ((refusal: Conflict) => string), check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    throw ApplicationFailure.create({
      type: ActivityFailureType.ProviderRejected,
      message: error.message,
      nonRetryable: true,
      details: [{ code: typeof code === 'string' ? code : code(error), optOut: false } satisfies CarrierRejection],
    });
  }
}
