import { activeNumbersOf, sendersFor } from '../../db/business-numbers';
import type { Prisma } from '../../db/prisma';
import { Conflict } from '../errors';

export const NO_SENDING_NUMBER = 'No sending number for this business';

export interface SenderDeps {
  prisma: Prisma;
  /** The configured carrier: its sender is the deployment's shared one. */
  carrier?: { sender: string };
  /** REQUIRE_BUSINESS_NUMBERS: a business without numbers of its own may not use the shared sender. */
  requireBusinessNumbers?: boolean;
}

/**
 * Where each of these phones' messages from the business go out from: one of the business's own
 * numbers (sticky per phone, spread over them for new phones), else the deployment's shared sender —
 * or a 409 when the business needs numbers and has none. Null: no carrier, no sender.
 */
export async function sendersOf(deps: SenderDeps, business: string, phones: string[]): Promise<(phone: string) => string | null> {
  if (!deps.carrier) return () => null;
  const shared = deps.carrier.sender;
  const numbers = (await activeNumbersOf(deps.prisma, business)).map((row) => row.number);
  if (numbers.length === 0) {
    if (deps.requireBusinessNumbers) throw new Conflict(NO_SENDING_NUMBER);
    return () => shared;
  }
  const chosen = await sendersFor(deps.prisma, business, numbers, phones);
  return (phone) => chosen.get(phone) ?? shared;
}
