import { isDatabaseUnavailable, isRefusedData, sqlState } from '../db/errors';
import type { Prisma } from '../db/prisma';

/*
 * The database as the doors know it: a client they are handed and pass on to the use cases, and what
 * its failures mean for an answer. No door imports src/db (test/project/structure.test.ts).
 */

/** What a use case that reads or writes rows is handed. */
export interface DatabaseDeps {
  prisma: Prisma;
}

/** The database refused the data itself (the SQLSTATE it answered, if any), or cannot answer now but will. */
export type DatabaseFailure = { kind: 'refused'; sqlState: string | undefined } | { kind: 'unavailable' };

/** What the database's own error means for the request; undefined for any other error. */
export function databaseFailureOf(error: unknown): DatabaseFailure | undefined {
  if (isRefusedData(error)) return { kind: 'refused', sqlState: sqlState(error) };
  if (isDatabaseUnavailable(error)) return { kind: 'unavailable' };
  return undefined;
}
