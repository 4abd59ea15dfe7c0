import { PrismaPg } from '@prisma/adapter-pg';
import { Client } from 'pg';
import { PrismaClient } from '../../src/generated/prisma/client';
import { createPrisma } from '../../src/db/prisma';

/**
 * The most queries one pg connection was handed at once during `run` (pg queues the extra ones and warns
 * that pg 9 will refuse them).
 */
async function mostQueriesAtOnce(run: () => Promise<unknown>): Promise<number> {
  const query = Client.prototype.query;
  const inFlight = new Map<Client, number>();
  let most = 0;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const now = (inFlight.get(this) ?? 0) + 1;
    inFlight.set(this, now);
    most = Math.max(most, now);
    const done = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    else done();
    return result;
  } as typeof query;
  try {
    await run();
  } finally {
    Client.prototype.query = query;
  }
  return most;
}

/** One Prisma query whose plan reads three relations side by side (a join of three children), in a transaction. */
const sideBySide = (prisma: PrismaClient, pk: string) =>
  prisma.$transaction(async (tx) =>
    tx.agent.findUniqueOrThrow({ where: { pk }, select: { id: true, assignments: true, absences: true, routingDecisions: true } }),
  );

test('a query whose plan reads relations side by side in a transaction hands its connection one query at a time (no pg deprecation warning), with the same answer', async () => {
  const prisma = createPrisma(process.env.TEST_DATABASE_URL!, 2);
  const agent = await prisma.agent.create({ data: { business: 'serial-tx', ownerId: 'u1', id: `a-${Date.now()}` } });
  try {
    let answer: unknown;
    const most = await mostQueriesAtOnce(async () => {
      answer = await sideBySide(prisma, agent.pk);
    });
    expect(answer).toEqual({ id: agent.id, assignments: [], absences: [], routingDecisions: [] });
    expect(most).toBe(1);
  } finally {
    await prisma.$disconnect();
  }

  // The same transaction on Prisma's adapter alone draws the warning this guards against.
  const plain = new PrismaClient({ adapter: new PrismaPg({ connectionString: process.env.TEST_DATABASE_URL!, max: 2 }) });
  try {
    expect(await mostQueriesAtOnce(() => sideBySide(plain, agent.pk))).toBeGreaterThan(1);
  } finally {
    await plain.agent.delete({ where: { pk: agent.pk } });
    await plain.$disconnect();
  }
});

test('a failed query in a queued transaction rolls the whole transaction back and the next one still runs', async () => {
  const prisma = createPrisma(process.env.TEST_DATABASE_URL!, 1);
  try {
    await prisma.$executeRaw`CREATE TABLE IF NOT EXISTS serial_tx_probe (n int PRIMARY KEY)`;
    await expect(
      prisma.$transaction(async (tx) =>
        Promise.all([tx.$executeRaw`INSERT INTO serial_tx_probe VALUES (1)`, tx.$executeRaw`INSERT INTO serial_tx_probe VALUES (1)`]),
      ),
    ).rejects.toThrow();
    expect(await prisma.$queryRaw<{ count: bigint }[]>`SELECT count(*) FROM serial_tx_probe`).toEqual([{ count: 0n }]);
    await prisma.$transaction(async (tx) => tx.$executeRaw`INSERT INTO serial_tx_probe VALUES (2)`);
    expect(await prisma.$queryRaw<{ n: number }[]>`SELECT n FROM serial_tx_probe`).toEqual([{ n: 2 }]);
  } finally {
    await prisma.$executeRaw`DROP TABLE IF EXISTS serial_tx_probe`;
    await prisma.$disconnect();
  }
});
