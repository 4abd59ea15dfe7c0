import type { CrmConnector, Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import type { Scope } from './scope';

/*
 * Every change of `crm_connectors`: set (created or replaced) by a user of the business, removed by
 * that user. One connector per business and CRM: the user who set it first owns it (and the clients it
 * creates) until it is removed. `secrets` arrives and leaves sealed; this module never opens it.
 */

/** What the sealed credentials are bound to: a value sealed for another purpose does not open here. */
export const CRM_SECRETS_PURPOSE = 'crm-secrets';

export interface ConnectorFields {
  agents: string[];
  policy: string | null;
  settings: Record<string, string>;
  /** Sealed JSON of the credentials. */
  secrets: string;
  agentMap: Record<string, string>;
  followCrmOwner: boolean;
  /** SHA-256 of a new secret for the inbound URL; absent: the stored one stays. */
  inboundTokenHash?: string;
}

export type PutConnectorOutcome = { connector: CrmConnector; created: boolean } | { heldByAnotherUser: true };

/**
 * Creates or replaces the business's connector to `crm`. `fields` sees what is stored (or null), so
 * credentials left out keep their stored values; the lock makes two first PUTs of one business one
 * after the other.
 */
export function putConnector(prisma: Prisma, scope: Scope, crm: string, fields: (stored: CrmConnector | null) => ConnectorFields): Promise<PutConnectorOutcome> {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`crm-connector/${scope.business}/${crm}`}, 0))`;
    const stored = await tx.crmConnector.findUnique({ where: { business_crm: { business: scope.business, crm } } });
    if (stored && stored.ownerId !== scope.ownerId) return { heldByAnotherUser: true as const };
    const data = fields(stored);
    if (stored) return { connector: await tx.crmConnector.update({ where: { id: stored.id }, data }), created: false };
    return { connector: await tx.crmConnector.create({ data: { ...scope, crm, ...data } }), created: true };
  });
}

/** The caller's connector to `crm` in its business, or null (none, or another user's). */
export function findOwnConnector(prisma: Prisma, scope: Scope, crm: string) {
  return prisma.crmConnector.findFirst({ where: { ...scope, crm } });
}

/** The caller's connectors in the business (at most one per CRM). */
export function listOwnConnectors(prisma: Prisma, scope: Scope) {
  return prisma.crmConnector.findMany({ where: scope });
}

/** The business's connector to `crm`, whoever set it: what an inbound request of the CRM is checked with. */
export function findBusinessConnector(prisma: Prisma | Db.TransactionClient, business: string, crm: string) {
  return prisma.crmConnector.findUnique({ where: { business_crm: { business, crm } } });
}

/** Replaces the secret of the caller's connector's inbound URL; the connector, or null when it has none. */
export async function setInboundTokenHash(prisma: Prisma, scope: Scope, crm: string, inboundTokenHash: string): Promise<CrmConnector | null> {
  const { count } = await prisma.crmConnector.updateMany({ where: { ...scope, crm }, data: { inboundTokenHash } });
  return count ? findOwnConnector(prisma, scope, crm) : null;
}

/** Removes the caller's connector; false when it had none. */
export async function deleteConnector(prisma: Prisma, scope: Scope, crm: string): Promise<boolean> {
  return (await prisma.crmConnector.deleteMany({ where: { ...scope, crm } })).count > 0;
}

/** Every connector of every business, oldest first (the hourly catch-up sweep's list). */
export function listConnectors(prisma: Prisma) {
  return prisma.crmConnector.findMany({ orderBy: { createdAt: 'asc' } });
}
