import { holdsAt } from '../../src/domain/assignment-holds';
import { HOLDS_CASES, NOW } from './holds-cases';

/* Whether an assignment holds its client (src/domain/assignment-holds.ts): every status, its dt_until ahead, at now or past. */

test.each(HOLDS_CASES)('an assignment %s, its dt_until %s: holds %s', (status, _until, dtUntil, holds) => {
  expect(holdsAt({ status, dtUntil }, NOW)).toBe(holds);
});
