import { ApplicationFailure } from '@temporalio/common';
import { ActivityFailureType } from '../../domain';
import { Conflict } from '../../use-cases/errors';
import type { CarrierRejection } from './carrier';

/** A message whose number was retired and that has no sender left: refused for good, like a carrier's refusal. */
export async function retiredNumberFailure<T>(choose: () => Promise<T>): Promise<T> {
  try {
    return await choose();
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    throw ApplicationFailure.create({
      type: ActivityFailureType.ProviderRejected,
      message: error.message,
      nonRetryable: true,
      details: [{ code: 'number-retired', optOut: false } satisfies CarrierRejection],
    });
  }
}
