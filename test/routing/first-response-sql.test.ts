import { CLOCK_RUNS } from '../../src/db/first-response-clocks';
import { firstResponseClockRuns } from '../../src/domain/first-response-clock';
import { FIRST_RESPONSE_CASES } from './first-response-cases';
import { databaseForFile } from '../support/database';

/* The clocks' reads (CLOCK_RUNS in src/db/first-response-clocks.ts) on PostgreSQL, for every case of the rule's table, over VALUES rows, as a WHERE reads it. */

const db = databaseForFile();

test.each(FIRST_RESPONSE_CASES)('a decision %s: the query agrees with firstResponseClockRuns', async (_case, decision) => {
  const [row] = await db().$queryRaw<{ runs: boolean }[]>`
    SELECT EXISTS (SELECT 1
      FROM (VALUES (${decision.status}::text, ${decision.answeredAt}::timestamptz, ${decision.escalatedAt}::timestamptz)) AS d(status, answered_at, escalated_at),
           (VALUES (${decision.assignmentStatus}::text)) AS a(status),
           (VALUES (${JSON.stringify(decision.settings)}::jsonb)) AS p(settings)
     WHERE ${CLOCK_RUNS}) AS runs`;
  expect(row.runs).toBe(firstResponseClockRuns(decision));
});
