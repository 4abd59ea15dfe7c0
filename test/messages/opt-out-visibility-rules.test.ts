import { revealsOptOut } from '../../src/domain/opt-out-visibility';
import { VISIBILITY_CASES } from './opt-out-visibility-cases';

/* Which of a user's messages show it a phone's opt-out record (src/domain/opt-out-visibility.ts). */

test.each(VISIBILITY_CASES)('a message %s: the record is visible %s', (_case, message, record, visible) => {
  expect(revealsOptOut(message, record)).toBe(visible);
});
