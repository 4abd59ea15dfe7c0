import { REVEALS } from '../../src/db/opt-outs';
import { revealsOptOut } from '../../src/domain/opt-out-visibility';
import { Prisma as Db } from '../../src/generated/prisma/client';
import { VISIBILITY_CASES } from './opt-out-visibility-cases';
import { databaseForFile } from '../support/database';

/* The listing's and the erasure's test (REVEALS in src/db/opt-outs.ts) on PostgreSQL over VALUES rows, as a WHERE reads it, for every case of the rule's table. */

const db = databaseForFile();

test.each(VISIBILITY_CASES)('a message %s: the query agrees with revealsOptOut', async (_case, message, record) => {
  const [row] = await db().$queryRaw<{ visible: boolean }[]>`
    SELECT EXISTS (SELECT 1
      FROM (VALUES (${Db.raw(`'${message.status}'`)}::message_status, ${message.providerAcceptedAt}::timestamptz, ${message.errorCode}::text)) AS m(status, provider_accepted_at, error_code),
           (VALUES (${record.source}::text, ${record.detail}::text)) AS o(source, detail)
     WHERE ${REVEALS}) AS visible`;
  expect(row.visible).toBe(revealsOptOut(message, record));
});
