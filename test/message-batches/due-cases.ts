import type { DueFields } from '../../src/domain/message-due';

/* When a message is due, one row per case: the rule's unit test and the SQL's test read the same table. */

export const SEND_AT = new Date('2026-05-01T12:00:00.000Z');
const later = (ms: number) => new Date(SEND_AT.getTime() + ms);

export const DUE_CASES: readonly (readonly [string, DueFields, Date])[] = [
  ['no send window', { sendAt: SEND_AT, deferredUntil: null }, SEND_AT],
  ['deferred by its window', { sendAt: SEND_AT, deferredUntil: later(9 * 3_600_000) }, later(9 * 3_600_000)],
  ['deferred by a millisecond', { sendAt: SEND_AT, deferredUntil: later(1) }, later(1)],
  ['deferred to its own send_at', { sendAt: SEND_AT, deferredUntil: SEND_AT }, SEND_AT],
  ['a deferral before send_at never brings it earlier', { sendAt: SEND_AT, deferredUntil: later(-3_600_000) }, SEND_AT],
];
