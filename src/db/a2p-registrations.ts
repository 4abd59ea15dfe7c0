import type { A2pRegistration as Row } from '../generated/prisma/client';
import { eventOf } from '../domain/event-payloads';
import { sameRegistration, type A2pRegistration } from '../domain/number-registration';
import { registrationOfRow, registrationView } from '../views/number-registration';
import { withEvents } from './events';
import type { Prisma } from './prisma';

/*
 * Every change of `a2p_registrations`: a number's registration as its carrier last said it. A reading
 * that differs from the stored one records `number.registration_changed` for every user of the holding
 * business (the events are a user's: docs/events.md), in the same transaction.
 */

export function findRegistration(prisma: Prisma, number: string): Promise<Row | null> {
  return prisma.a2pRegistration.findUnique({ where: { number } });
}

export async function registrationsOf(prisma: Prisma, numbers: string[]): Promise<Map<string, Row>> {
  if (numbers.length === 0) return new Map();
  const rows = await prisma.a2pRegistration.findMany({ where: { number: { in: numbers } } });
  return new Map(rows.map((row) => [row.number, row]));
}

const columnsOf = (carrier: string, reading: A2pRegistration) => ({
  carrier,
  kind: reading.kind,
  brandId: reading.brand?.id ?? null,
  brandStatus: reading.brand?.status ?? null,
  campaignId: reading.campaign?.id ?? null,
  campaignUseCase: reading.campaign?.useCase ?? null,
  campaignStatus: reading.campaign?.status ?? null,
  tollFreeStatus: reading.tollFree?.status ?? null,
});

/** The users of a business: whoever has a webhook subscription, a client or an agent in it. */
async function usersOf(tx: Parameters<Parameters<Prisma['$transaction']>[0]>[0], business: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ owner_id: string }[]>`
    SELECT owner_id FROM webhook_subscriptions WHERE business = ${business}
    UNION SELECT owner_id FROM clients WHERE business = ${business}
    UNION SELECT owner_id FROM agents WHERE business = ${business}
    ORDER BY owner_id`;
  return rows.map((row) => row.owner_id);
}

/**
 * Stores a reading of the number's registration (read at `now`); when it differs from the stored one, its
 * `changed_at` moves and, when `business` holds the number, each of its users gets `number.registration_changed`.
 */
export async function saveRegistration(
  prisma: Prisma,
  input: { number: string; carrier: string; business: string | null; reading: A2pRegistration; now?: Date },
): Promise<{ row: Row; changed: boolean; previous: Row | null }> {
  const now = input.now ?? new Date();
  return withEvents(prisma, async (tx, record) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`a2p/${input.number}`}, 0))`;
    const previous = await tx.a2pRegistration.findUnique({ where: { number: input.number } });
    const changed = !previous || !sameRegistration(registrationOfRow(previous), input.reading);
    const columns = { ...columnsOf(input.carrier, input.reading), readAt: now, ...(changed && { changedAt: now }) };
    const row = await tx.a2pRegistration.upsert({ where: { number: input.number }, create: { number: input.number, changedAt: now, ...columns }, update: columns });
    if (changed && input.business) {
      const data = { business: input.business, number: input.number, registration: registrationView(input.number, row), previous: registrationView(input.number, previous) };
      for (const ownerId of await usersOf(tx, input.business)) {
        await record(eventOf('number.registration_changed', { business: input.business, ownerId, clientPk: null, clientId: null }, data, 'carrier'));
      }
    }
    return { row, changed, previous };
  });
}

/** The numbers read longest ago (never read first), of `businesses` when given: the scheduled refresh's next page. */
export async function registrationsReadBefore(prisma: Prisma, before: Date, limit: number, businesses?: readonly string[]): Promise<{ business: string; number: string }[]> {
  return prisma.$queryRaw<{ business: string; number: string }[]>`
    SELECT b.business, b.number FROM business_numbers b LEFT JOIN a2p_registrations r ON r.number = b.number
     WHERE b.active_slot AND (r.read_at IS NULL OR r.read_at < ${before})
       AND (${businesses === undefined} OR b.business = ANY(${[...(businesses ?? [])]}::text[]))
     ORDER BY r.read_at ASC NULLS FIRST, b.number
     LIMIT ${limit}`;
}
