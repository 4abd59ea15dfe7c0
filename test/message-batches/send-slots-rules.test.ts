import { reserveSlots } from '../../src/domain/send-slots';

/* A sender's send slots (src/domain/send-slots.ts): where a chunk's first slot falls, and how far the next free one moves. */

const NOW = new Date('2026-06-01T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

test.each([
  ['no slot reserved yet', null, 10, 100, 0, 100],
  ['the next free slot passed', at(-60_000), 10, 100, 0, 100],
  ['the next free slot is now', NOW, 10, 100, 0, 100],
  ['the next free slot ahead', at(5_000), 10, 100, 5_000, 5_100],
  ['a chunk of one at one per second', at(5_000), 1, 1, 5_000, 6_000],
  ['a span of a fraction of a millisecond, rounded', null, 1, 3_000, 0, 0],
  ['a span rounded up', null, 2, 3, 0, 667],
] as const)('%s: %i messages at %i/s take the slot %i ms after now, the next free %i ms after now', (_case, nextFreeAt, count, perSecond, firstMs, nextMs) => {
  expect(reserveSlots({ nextFreeAt, now: NOW, count, perSecond })).toEqual({ first: at(firstMs), nextFreeAt: at(nextMs) });
});
