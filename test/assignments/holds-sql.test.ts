import { Prisma as Db } from '../../src/generated/prisma/client';
import { holdsAtSql } from '../../src/db/assignment-holds';
import { holdsAt } from '../../src/domain/assignment-holds';
import { HOLDS_CASES, NOW } from './holds-cases';
import { databaseForFile } from '../support/database';

/* The queries' holding test (holdsAtSql in src/db/assignment-holds.ts) on PostgreSQL, for every case of the rule's table. */

const db = databaseForFile();

test.each(HOLDS_CASES)('an assignment %s, its dt_until %s: the query agrees with holdsAt', async (status, _until, dtUntil) => {
  const [row] = await db().$queryRaw<{ holds: boolean }[]>`
    SELECT ${holdsAtSql(NOW)} AS holds FROM (VALUES (${Db.raw(`'${status}'`)}::assignment_status, ${dtUntil}::timestamptz)) AS a(status, dt_until)`;
  expect(row.holds).toBe(holdsAt({ status, dtUntil }, NOW));
});
