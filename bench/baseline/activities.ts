import type { Prisma } from '../../src/db/prisma';

/** The baseline's activities: when each delayed workflow ran, and one INSERT for a request. */
export function createRawActivities(prisma: Prisma) {
  const deliveredAt = new Map<string, number>();
  const deliveries = new Map<string, number>();
  return {
    deliveredAt,
    deliveries,
    activities: {
      async rawDeliver(id: string): Promise<void> {
        if (!deliveredAt.has(id)) deliveredAt.set(id, Date.now());
        deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
      },
      async rawInsert(id: string): Promise<void> {
        await prisma.$executeRawUnsafe('INSERT INTO bench_raw (id) VALUES ($1)', id);
      },
    },
  };
}

export type RawActivities = ReturnType<typeof createRawActivities>['activities'];
