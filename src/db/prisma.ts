import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';
import { serialTransactions } from './serial-transactions';

/** A webhook delivery row a transaction just created, with what its workflow's search attributes show: no personal data. */
export interface NewDelivery {
  id: string;
  business: string;
  type: string;
  clientId: string | null;
}

/** Takes the deliveries of a transaction once it has committed, to start their workflows; it must not throw (the sweep catches up). */
export type DeliveryHandOver = (deliveries: NewDelivery[]) => void;

/**
 * The database client. The one a process writes events through is built with its `handOverDeliveries`
 * (the composition root's delivery outbox); one built without it leaves new deliveries to the sweep.
 */
export type Prisma = PrismaClient & { readonly handOverDeliveries?: DeliveryHandOver };

export function createPrisma(connectionString: string, maxConnections = 10, handOverDeliveries?: DeliveryHandOver): Prisma {
  const client = new PrismaClient({ adapter: serialTransactions(new PrismaPg({ connectionString, max: maxConnections })) });
  return handOverDeliveries ? Object.assign(client, { handOverDeliveries }) : client;
}

/** Settles once the database has answered a trivial statement: whether it is there at all. */
export function pingDatabase(prisma: Prisma): Promise<unknown> {
  return prisma.$queryRaw`SELECT 1`;
}
