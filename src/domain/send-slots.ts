/*
 * A sender's send slots (docs/messages.md, campaigns' pacing): a chunk of `count` messages reserves
 * consecutive slots at `perSecond`, its first the later of now and the sender's next free slot, which
 * then moves on by count ÷ perSecond. src/db/sender-paces.ts does it in one upsert, so that every worker
 * process reserves from the same sender's pace.
 */

export interface SlotRequest {
  /** The sender's next free slot; null before its first reservation. */
  nextFreeAt: Date | null;
  now: Date;
  count: number;
  perSecond: number;
}

/** How long `count` slots at `perSecond` last, in whole milliseconds. */
export const slotSpanMs = (count: number, perSecond: number): number => Math.round((count / perSecond) * 1000);

/** The reservation's first slot, and the sender's next free slot after it. */
export function reserveSlots(request: SlotRequest): { first: Date; nextFreeAt: Date } {
  const { nextFreeAt, now, count, perSecond } = request;
  const first = nextFreeAt !== null && nextFreeAt > now ? nextFreeAt : now;
  return { first, nextFreeAt: new Date(first.getTime() + slotSpanMs(count, perSecond)) };
}
