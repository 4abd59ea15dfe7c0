import { Prisma as Db } from '../generated/prisma/client';

/*
 * messageDueAt (src/domain/message-due.ts) of the message row `m`, in SQL: the batch's next-due query and
 * its chunk claims pick and order due rows in one statement each (set-based, `FOR UPDATE SKIP LOCKED`).
 * test/message-batches/due-sql.test.ts runs both statements for every row of the rule's table.
 */
export const DUE_AT = Db.sql`GREATEST(m.send_at, COALESCE(m.deferred_until, m.send_at))`;
