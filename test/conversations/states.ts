import type { ConversationClocks } from '../../src/domain/conversation-transitions';

/* The conversation states both transition tables start from: the rules' (no database) and the SQL's. */

export const FIRST = new Date('2026-01-01T00:00:00.000Z');
export const WAITING = new Date('2026-01-02T00:00:00.000Z');
export const SNOOZED = new Date('2026-01-03T00:00:00.000Z');
export const AT = new Date('2026-02-01T00:00:00.123Z');
export const UNTIL = new Date('2026-03-01T00:00:00.000Z');

export const STATES: Record<string, ConversationClocks | null> = {
  none: null,
  'open, waiting': { status: 'open', snoozedUntil: null, waitingSince: WAITING, firstInboundAt: FIRST },
  'open, ours only': { status: 'open', snoozedUntil: null, waitingSince: null, firstInboundAt: null },
  'open, answered': { status: 'open', snoozedUntil: null, waitingSince: null, firstInboundAt: FIRST },
  snoozed: { status: 'snoozed', snoozedUntil: SNOOZED, waitingSince: WAITING, firstInboundAt: FIRST },
  closed: { status: 'closed', snoozedUntil: null, waitingSince: null, firstInboundAt: FIRST },
};
