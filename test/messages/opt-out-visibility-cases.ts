import { MESSAGE_STATUSES } from '../../src/domain/messages';
import type { OptOutSource, RevealingMessage } from '../../src/domain/opt-out-visibility';

/* The cases both tests of the opt-out visibility rule run: the rule's (no database) and the query's. */

const AT = new Date('2026-06-01T12:00:00.000Z');
const KEYWORD: OptOutSource = { source: 'keyword', detail: null };
const REFUSAL: OptOutSource = { source: 'carrier', detail: '21610' };

export const VISIBILITY_CASES: [string, RevealingMessage, OptOutSource, boolean][] = [
  ...MESSAGE_STATUSES.map((status): [string, RevealingMessage, OptOutSource, boolean] => [`${status}, not accepted, a STOP`, { status, providerAcceptedAt: null, errorCode: null }, KEYWORD, ['sent', 'delivered', 'read', 'undelivered'].includes(status)]),
  ['sending, accepted by the carrier, a STOP', { status: 'sending', providerAcceptedAt: AT, errorCode: null }, KEYWORD, true],
  ['failed with the refusal the record is', { status: 'failed', providerAcceptedAt: null, errorCode: '21610' }, REFUSAL, true],
  ['failed with another code than the record', { status: 'failed', providerAcceptedAt: null, errorCode: '30003' }, REFUSAL, false],
  ['failed without a code, a refusal record', { status: 'failed', providerAcceptedAt: null, errorCode: null }, REFUSAL, false],
  ['failed with a code, a STOP record', { status: 'failed', providerAcceptedAt: null, errorCode: '21610' }, KEYWORD, false],
  ['canceled, a refusal record of the same code', { status: 'canceled', providerAcceptedAt: null, errorCode: '21610' }, REFUSAL, false],
];
