import { slotSpanMs } from '../domain/send-slots';
import type { Prisma } from './prisma';

/*
 * Every change of `sender_paces`: a chunk of a batch reserves its send slots at MESSAGE_SEND_RATE_PER_SECOND,
 * in one statement, so that all worker processes together keep one rate per sender.
 */

/** reserveSlots (src/domain/send-slots.ts) for `sender`, now being the database's clock: the first slot's time. */
export async function reserveSendSlots(prisma: Prisma, input: { sender: string; count: number; perSecond: number }): Promise<Date> {
  const spanMs = slotSpanMs(input.count, input.perSecond);
  const [row] = await prisma.$queryRaw<{ first: Date }[]>`
    INSERT INTO sender_paces AS p (sender, next_slot_at) VALUES (${input.sender}, clock_timestamp() + make_interval(secs => ${spanMs / 1000}))
    ON CONFLICT (sender) DO UPDATE SET next_slot_at = GREATEST(p.next_slot_at, clock_timestamp()) + make_interval(secs => ${spanMs / 1000})
    RETURNING next_slot_at - make_interval(secs => ${spanMs / 1000}) AS first`;
  return row.first;
}
