import { ASSIGNMENT_STATUSES, type AssignmentStatus } from '../../src/domain/assignments';

/* The cases both tests of the holding rule run: the rule's (no database) and the query's. */

export const NOW = new Date('2026-06-01T12:00:00.000Z');
const UNTIL = { 'a second ahead': new Date(NOW.getTime() + 1000), 'now': NOW, 'a second ago': new Date(NOW.getTime() - 1000) } as const;

export const HOLDS_CASES: [AssignmentStatus, keyof typeof UNTIL, Date, boolean][] = ASSIGNMENT_STATUSES.flatMap((status) =>
  (Object.keys(UNTIL) as (keyof typeof UNTIL)[]).map((until) => [status, until, UNTIL[until], status === 'active' && until === 'a second ahead'] as [AssignmentStatus, keyof typeof UNTIL, Date, boolean]),
);
