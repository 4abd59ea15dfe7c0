import { ApplicationFailure } from '@temporalio/common';
import { ActivityFailureType } from '../../domain';
import { Conflict } from '../../use-cases/errors';
import type { CarrierRejection } from './carrier';

/** A check before the hand-over that no retry can heal (a Conflict): refused for good, like a carrier's refusal, under `code`. */
export async function refusedForGood<T>(code: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    throw ApplicationFailure.create({
      type: ActivityFailureType.ProviderRejected,
      message: error.message,
      nonRetryable: true,
      details: [{ code, optOut: false } satisfies CarrierRejection],
    });
  }
}
