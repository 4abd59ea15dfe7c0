import { canBeAnswered } from '../../src/domain/message-answerable';
import { MESSAGE_STATUSES } from '../../src/domain/messages';
import { ANSWERABLE_CASES } from './answerable-cases';

/* Which of our messages a client's reply can answer (src/domain/message-answerable.ts): every status, taken by the carrier or not. */

test.each(ANSWERABLE_CASES)('a message %s, its acceptance %s: answerable %s', (status, accepted, answerable) => {
  expect(canBeAnswered({ status, providerAcceptedAt: accepted === 'recorded' ? new Date() : null })).toBe(answerable);
});

test('the cases cover every status, accepted and not', () => {
  expect(new Set(ANSWERABLE_CASES.map(([status, accepted]) => `${status}/${accepted}`)).size).toBe(MESSAGE_STATUSES.length * 2);
});
