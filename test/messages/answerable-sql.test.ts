import { Prisma as Db } from '../../src/generated/prisma/client';
import { ANSWERABLE_SQL } from '../../src/db/messages/inbound';
import { canBeAnswered } from '../../src/domain/message-answerable';
import { ANSWERABLE_CASES } from './answerable-cases';
import { databaseForFile } from '../support/database';

/* The reply's query (ANSWERABLE_SQL in src/db/messages/inbound.ts) on PostgreSQL, for every case of the rule's table. */

const db = databaseForFile();

test.each(ANSWERABLE_CASES)('a message %s, its acceptance %s: the query agrees with canBeAnswered', async (status, accepted) => {
  const acceptedAt = accepted === 'recorded' ? new Date() : null;
  const [row] = await db().$queryRaw<{ answerable: boolean }[]>`
    SELECT ${ANSWERABLE_SQL} AS answerable
      FROM (VALUES (${Db.raw(`'${status}'`)}::message_status, ${acceptedAt}::timestamptz)) AS m(status, provider_accepted_at)`;
  expect(row.answerable).toBe(canBeAnswered({ status, providerAcceptedAt: acceptedAt }));
});
