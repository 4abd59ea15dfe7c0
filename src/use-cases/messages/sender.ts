import { activeNumbersOf, latestRegistrationOf, sendersFor } from '../../db/business-numbers';
import { changeMessageSender } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { Conflict } from '../errors';
import type { NumberChannel } from '../../domain/channels';

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
 * or a 409 when the business needs numbers and has none. Null: no carrier, no sender. Only numbers
 * that carry `need` (SMS, MMS, WhatsApp) are chosen when the business has any.
 */
export async function sendersOf(deps: SenderDeps, business: string, phones: string[], need: NumberChannel = 'sms'): Promise<(phone: string) => string | null> {
  if (!deps.carrier) return () => null;
  const shared = deps.carrier.sender;
  const active = await activeNumbersOf(deps.prisma, business);
  // Among the numbers that carry what the message needs, when any does (else the check after names the sender that does not).
  const carrying = active.filter((row) => row.channels.includes(need));
  const numbers = (carrying.length > 0 ? carrying : active).map((row) => row.number);
  if (numbers.length === 0) {
    if (deps.requireBusinessNumbers) throw new Conflict(NO_SENDING_NUMBER);
    return () => shared;
  }
  const chosen = await sendersFor(deps.prisma, business, numbers, phones);
  return (phone) => chosen.get(phone) ?? shared;
}

export const SENDING_NUMBER_RETIRED = 'Its sending number was retired from the business, which has no other number to send from';

/**
 * The sender a message leaving now goes out from: its stored one, unless that is a number retired from
 * the business since the message was accepted. Then the choice is made again from the business's
 * numbers now (sticky per phone, spread for new phones; the shared sender when it has none, unless
 * REQUIRE_BUSINESS_NUMBERS: a Conflict) and stored on the message.
 */
export async function senderAtSend(
  deps: SenderDeps,
  message: { id: string; business: string; phone: string; sender: string | null },
  retired: RetiredCheck = retiredCheck(deps.prisma),
): Promise<string | null> {
  const stored = message.sender;
  if (!deps.carrier || stored === null || stored === deps.carrier.sender) return stored;
  if (!(await retired(message.business, stored))) return stored;
  let chosen: string | null;
  try {
    chosen = (await sendersOf(deps, message.business, [message.phone]))(message.phone);
  } catch (error) {
    throw error instanceof Conflict ? new Conflict(SENDING_NUMBER_RETIRED) : error;
  }
  if (chosen === null || chosen === stored) return stored;
  // Another attempt that changed it first wins: its choice is the one to send from.
  return changeMessageSender(deps.prisma, { messageId: message.id, from: stored, to: chosen });
}

export type RetiredCheck = (business: string, number: string) => Promise<boolean>;

/** Whether the business's number was retired, asked once per number (a campaign's chunk shares it). */
export function retiredCheck(prisma: Prisma): RetiredCheck {
  const known = new Map<string, Promise<boolean>>();
  return (business, number) => {
    const key = `${business}\n${number}`;
    if (!known.has(key)) known.set(key, latestRegistrationOf(prisma, business, number).then((row) => row !== null && row.activeSlot === null));
    return known.get(key)!;
  };
}
