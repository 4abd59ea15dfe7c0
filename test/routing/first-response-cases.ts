import type { FirstResponseFields } from '../../src/domain/first-response-clock';

/* The cases both tests of the first-response clock's rule run: the rule's (no database) and the query's. */

const AT = new Date('2026-06-01T12:00:00.000Z');
const RUNNING: FirstResponseFields = { status: 'assigned', answeredAt: null, escalatedAt: null, assignmentStatus: 'active', settings: { first_response_within: 'PT15M' } };

export const FIRST_RESPONSE_CASES: [string, FirstResponseFields, boolean][] = [
  ['assigned, unanswered, its assignment active, a duration', RUNNING, true],
  ['queued', { ...RUNNING, status: 'queued' }, false],
  ['reassigned', { ...RUNNING, status: 'reassigned' }, false],
  ['answered', { ...RUNNING, answeredAt: AT }, false],
  ['escalated', { ...RUNNING, escalatedAt: AT }, false],
  ['its assignment expired', { ...RUNNING, assignmentStatus: 'expired' }, false],
  ['its assignment unassigned', { ...RUNNING, assignmentStatus: 'unassigned' }, false],
  ['a policy without the setting', { ...RUNNING, settings: {} }, false],
  ['a policy whose setting is null', { ...RUNNING, settings: { first_response_within: null } }, false],
  ['a policy whose setting is not a duration', { ...RUNNING, settings: { first_response_within: '15 minutes' } }, false],
  ['a policy whose setting is a number', { ...RUNNING, settings: { first_response_within: 900 } }, false],
  ['a policy with only a reply clock', { ...RUNNING, settings: { next_response_within: 'PT1H' } }, false],
];
