import { ApplicationFailure } from '@temporalio/common';
import { databaseFailureOf } from '../use-cases/database';
import { RequestFailureType } from '../domain';

type AnyActivity = (...args: never[]) => Promise<unknown>;

/**
 * Data the database refuses fails the activity at once, without retry: Temporal would otherwise retry
 * it for ever and hold the workflow (and, for a local activity, a worker slot) with it. The failure
 * names the SQLSTATE only, never the refused value, which may be personal.
 */
/** The non-retryable failure that data the database refused becomes; undefined for any other error. */
export function refusedDataFailure(error: unknown): ApplicationFailure | undefined {
  const failure = databaseFailureOf(error);
  if (failure?.kind !== 'refused') return undefined;
  return ApplicationFailure.create({
    type: RequestFailureType.InvalidData,
    message: `The database refused the data (SQLSTATE ${failure.sqlState ?? 'unknown'}); nothing was recorded`,
    nonRetryable: true,
  });
}

export function failOnRefusedData<T extends Record<string, AnyActivity>>(activities: T): T {
  const wrapped: Record<string, AnyActivity> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = async (...args) => {
      try {
        return await activity(...args);
      } catch (error) {
        throw refusedDataFailure(error) ?? error;
      }
    };
  }
  return wrapped as T;
}
