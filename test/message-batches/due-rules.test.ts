import { messageDueAt } from '../../src/domain/message-due';
import { DUE_CASES } from './due-cases';

/*
 * When a scheduled message is due (src/domain/message-due.ts), no database:
 * test/message-batches/due-sql.test.ts proves the batch's SQL says the same for every row.
 */

test.each(DUE_CASES)('%s', (_name, message, due) => {
  expect(messageDueAt(message)).toEqual(due);
});
