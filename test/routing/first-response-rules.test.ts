import { firstResponseClockRuns } from '../../src/domain/first-response-clock';
import { FIRST_RESPONSE_CASES } from './first-response-cases';

/* Whether a routing decision's first-response clock runs (src/domain/first-response-clock.ts). */

test.each(FIRST_RESPONSE_CASES)('a decision %s: its clock runs %s', (_case, decision, runs) => {
  expect(firstResponseClockRuns(decision)).toBe(runs);
});
