import type { ClientConsent, Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';

/* Every change of the `client_consents` table: a client's consent per channel (WhatsApp's opt-in). */

type Tx = Db.TransactionClient;

export async function putConsent(prisma: Prisma, consent: { clientPk: string; channel: string; source: string; at: Date }): Promise<ClientConsent> {
  const { clientPk, channel, source, at } = consent;
  return prisma.clientConsent.upsert({ where: { clientPk_channel: { clientPk, channel } }, create: consent, update: { source, at } });
}

export function consentsOf(db: Prisma | Tx, clientPk: string): Promise<ClientConsent[]> {
  return db.clientConsent.findMany({ where: { clientPk }, orderBy: { channel: 'asc' } });
}

export async function hasConsent(db: Prisma | Tx, clientPk: string, channel: string): Promise<boolean> {
  return (await db.clientConsent.count({ where: { clientPk, channel } })) > 0;
}

export async function withdrawConsent(prisma: Prisma, clientPk: string, channel: string): Promise<boolean> {
  return (await prisma.clientConsent.deleteMany({ where: { clientPk, channel } })).count > 0;
}

/** An erased client's consents go with it. */
export async function eraseClientConsents(tx: Tx, clientPk: string): Promise<void> {
  await tx.clientConsent.deleteMany({ where: { clientPk } });
}
