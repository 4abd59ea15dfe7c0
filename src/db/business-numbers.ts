import { createHash } from 'node:crypto';
import { Prisma as Db, type BusinessNumber } from '../generated/prisma/client';
import type { Prisma } from './prisma';

/*
 * Every change of `business_numbers`: a number registered for one business at a time (the unique
 * (number, active_slot) index decides between racing registrations), updated by its business, retired.
 * A retired registration stays, so the messages sent from it still find their business.
 */

type Tx = Db.TransactionClient;

export interface NumberRegistration {
  business: string;
  number: string;
  carrier: string;
  messagingServiceSid: string | null;
  /** Sealed; undefined leaves what is stored, null removes it. */
  credentials?: string | null;
  /** What it carries; undefined leaves what is stored (a new number: SMS and MMS). */
  channels?: string[];
  /** Its RCS agent; undefined leaves what is stored, null removes it. */
  rcsAgent?: string | null;
}

export type RegisterOutcome = { registered: BusinessNumber; created: boolean } | { heldBy: string };

/**
 * Registers the number for the business, or updates its registration; `heldBy` when another business
 * holds it (nothing changed).
 */
export async function registerNumber(prisma: Prisma, registration: NumberRegistration): Promise<RegisterOutcome> {
  const { business, number, carrier, messagingServiceSid, credentials, channels, rcsAgent } = registration;
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`number/${number}`}, 0))`;
    const active = await tx.businessNumber.findFirst({ where: { number, activeSlot: true } });
    if (active && active.business !== business) return { heldBy: active.business };
    if (active) {
      const registered = await tx.businessNumber.update({
        where: { id: active.id },
        data: { carrier, messagingServiceSid, ...(credentials !== undefined && { credentials }), ...(channels !== undefined && { channels }), ...(rcsAgent !== undefined && { rcsAgent }) },
      });
      return { registered, created: false };
    }
    const registered = await tx.businessNumber.create({
      data: { business, number, carrier, messagingServiceSid, credentials: credentials ?? null, ...(channels !== undefined && { channels }), rcsAgent: rcsAgent ?? null },
    });
    return { registered, created: true };
  });
}

export function activeNumbersOf(db: Prisma | Tx, business: string): Promise<BusinessNumber[]> {
  return db.businessNumber.findMany({ where: { business, activeSlot: true }, orderBy: { number: 'asc' } });
}

/** Every business's active numbers, by business and number (the operator's view across businesses). */
export function everyActiveNumber(db: Prisma | Tx): Promise<BusinessNumber[]> {
  return db.businessNumber.findMany({ where: { activeSlot: true }, orderBy: [{ business: 'asc' }, { number: 'asc' }] });
}

/** Retires the business's registration of the number; false when it holds no such number. */
export async function retireNumber(prisma: Prisma, business: string, number: string, now = new Date()): Promise<boolean> {
  const retired = await prisma.businessNumber.updateMany({ where: { business, number, activeSlot: true }, data: { activeSlot: null, retiredAt: now } });
  return retired.count > 0;
}

/** The business holding the number now, or null (the deployment's shared sender, or nobody's). */
export function activeRegistration(db: Prisma | Tx, number: string): Promise<BusinessNumber | null> {
  return db.businessNumber.findFirst({ where: { number, activeSlot: true } });
}

/** The number an RCS agent falls back to (RCS callbacks name the agent, not the number): its active registration, else the latest. */
export async function numberOfRcsAgent(db: Prisma | Tx, agent: string): Promise<string | null> {
  const row = await db.businessNumber.findFirst({ where: { rcsAgent: agent }, orderBy: [{ activeSlot: { sort: 'desc', nulls: 'last' } }, { createdAt: 'desc' }], select: { number: true } });
  return row?.number ?? null;
}

/** The active number other than `except` whose RCS agent is `agent`, or null. */
export async function activeNumberOfRcsAgent(db: Prisma | Tx, agent: string, except: string): Promise<string | null> {
  const row = await db.businessNumber.findFirst({ where: { rcsAgent: agent, activeSlot: true, NOT: { number: except } }, select: { number: true } });
  return row?.number ?? null;
}

/** The business's latest registration of the number, active or retired: what its messages from it were sent with. */
export function latestRegistrationOf(db: Prisma | Tx, business: string, number: string): Promise<BusinessNumber | null> {
  return db.businessNumber.findFirst({ where: { business, number }, orderBy: [{ activeSlot: { sort: 'desc', nulls: 'last' } }, { createdAt: 'desc' }] });
}

/** Who a text to the number reaches: its business now, else the business that held it last (a reply to a retired number). */
export async function ownerOfNumber(db: Prisma | Tx, number: string): Promise<BusinessNumber | null> {
  return (await activeRegistration(db, number)) ?? db.businessNumber.findFirst({ where: { number }, orderBy: { retiredAt: 'desc' } });
}

/** Whether the business ever held the number (active or retired). */
export async function everHeldBy(db: Prisma | Tx, business: string, number: string): Promise<boolean> {
  return (await db.businessNumber.count({ where: { business, number } })) > 0;
}

/**
 * The sender of each phone's next message from the business among `numbers` (its active ones, sorted):
 * the number its latest message to that phone went out from, while still among them, so a conversation
 * stays on one thread; for a phone it never texted from them, one spread by a hash of the phone.
 */
export async function sendersFor(db: Prisma | Tx, business: string, numbers: string[], phones: string[]): Promise<Map<string, string>> {
  const chosen = new Map<string, string>();
  if (numbers.length === 0 || phones.length === 0) return chosen;
  const unique = [...new Set(phones)];
  const rows = await db.$queryRaw<{ phone: string; sender: string }[]>`
    SELECT DISTINCT ON (m.phone) m.phone, m.sender FROM messages m
     WHERE m.phone = ANY(${unique}::text[]) AND m.business = ${business} AND m.direction = 'outbound' AND m.sender = ANY(${numbers}::text[])
     ORDER BY m.phone, m.created_at DESC`;
  for (const row of rows) chosen.set(row.phone, row.sender);
  for (const phone of unique) {
    if (!chosen.has(phone)) chosen.set(phone, numbers[createHash('sha256').update(phone).digest().readUInt32BE(0) % numbers.length]);
  }
  return chosen;
}

/**
 * Seals again, under the sealing key, every registration's credentials an older key sealed (`reseal`:
 * the box's open and seal, bound to the row's purpose); how many, and the rows it could not open.
 */
export async function resealNumberCredentials(
  prisma: Prisma,
  currentKeyPrefix: string,
  reseal: (sealed: string, row: { business: string; number: string }) => string,
): Promise<{ resealed: number; unreadable: { id: string; reason: string }[] }> {
  const result = { resealed: 0, unreadable: [] as { id: string; reason: string }[] };
  const rows = await prisma.businessNumber.findMany({ where: { credentials: { not: null }, NOT: { credentials: { startsWith: currentKeyPrefix } } } });
  for (const row of rows) {
    let sealed: string;
    try {
      sealed = reseal(row.credentials!, row);
    } catch (error) {
      result.unreadable.push({ id: row.id, reason: (error as Error).message });
      continue;
    }
    const changed = await prisma.businessNumber.updateMany({ where: { id: row.id, credentials: row.credentials }, data: { credentials: sealed } });
    result.resealed += changed.count;
  }
  return result;
}
