import { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';
import { followedWriteStatus, LEAD_NOT_FOLLOWING } from '../domain/crm';

/*
 * Every change of `crm_leads`: the decision about a record, made once (the primary key decides between
 * racing attempts), its assignment done, its owner written back or refused for good, and a person's
 * change of owner in the CRM followed. Each write-back step is a compare-and-set on the status it leaves.
 */

type Tx = Db.TransactionClient;

export interface LeadKey {
  business: string;
  crm: string;
  recordId: string;
}

export interface NewLead extends LeadKey {
  ownerId: string;
  clientId: string;
  agents: string[];
  crmOwnerId: string | null;
  /** `queued` while the routing policy's queue holds the client; `rejected` when the policy found nobody and says reject. */
  writeStatus: 'pending' | 'unmapped' | 'queued' | 'rejected';
  assignedAt?: Date | null;
}

const where = ({ business, crm, recordId }: LeadKey) => ({ business_crm_recordId: { business, crm, recordId } });

export function findLead(db: Prisma | Tx, key: LeadKey) {
  return db.crmLead.findUnique({ where: where(key) });
}

/** Records the decision unless one exists; either way answers the decision that stands, and whether it is this one. */
export async function insertLeadDecision(tx: Tx, lead: NewLead) {
  const inserted = await tx.crmLead.createMany({ data: [lead], skipDuplicates: true });
  return { lead: (await findLead(tx, lead))!, decidedNow: inserted.count > 0 };
}

export async function markLeadAssigned(prisma: Prisma, key: LeadKey, now = new Date()): Promise<void> {
  await prisma.crmLead.updateMany({ where: { ...key, assignedAt: null }, data: { assignedAt: now } });
}

/** queued → pending (or unmapped): the routing queue assigned the client to `agent`. False when it was no longer queued. */
export async function markLeadRouted(prisma: Prisma | Tx, key: LeadKey, agent: string, crmOwnerId: string | null, now = new Date()): Promise<boolean> {
  const updated = await prisma.crmLead.updateMany({
    where: { ...key, writeStatus: 'queued' },
    data: { agents: [agent], crmOwnerId, assignedAt: now, writeStatus: crmOwnerId ? 'pending' : 'unmapped' },
  });
  return updated.count > 0;
}

/** queued → canceled: the client was taken out of the routing queue, so nobody is written back. */
export async function markLeadUnrouted(prisma: Prisma, key: LeadKey, error: string): Promise<boolean> {
  return (await prisma.crmLead.updateMany({ where: { ...key, writeStatus: 'queued' }, data: { writeStatus: 'canceled', writeError: error.slice(0, 500) } })).count > 0;
}

/** pending → written. */
export async function markOwnerWritten(prisma: Prisma, key: LeadKey, now = new Date()): Promise<void> {
  await prisma.crmLead.updateMany({ where: { ...key, writeStatus: 'pending' }, data: { writeStatus: 'written', writtenAt: now, writeError: null } });
}

/** pending → failed, with our words for why; false when the write was no longer pending. */
export async function markOwnerWriteFailed(tx: Tx, key: LeadKey, error: string): Promise<boolean> {
  return (await tx.crmLead.updateMany({ where: { ...key, writeStatus: 'pending' }, data: { writeStatus: 'failed', writeError: error.slice(0, 500) } })).count > 0;
}

/** The CRM's owner became `crmOwnerId` by a person's hand and the assignment followed: the decision is now theirs. */
export async function followCrmOwner(prisma: Prisma, key: LeadKey, crmOwnerId: string, agents: string[]): Promise<void> {
  await prisma.crmLead.update({ where: where(key), data: { crmOwnerId, agents, writeStatus: 'written', writeError: null } });
}

/**
 * Whoever holds the client now became the lead's owner (the one the connector assigned no longer
 * does): its CRM owner id is the one to write back (`pending`), or none is mapped (`unmapped`). A queued
 * or rejected lead is left to its routing. False when the lead is not one to follow.
 */
export async function followHolder(tx: Tx, key: LeadKey, agent: string, crmOwnerId: string | null): Promise<boolean> {
  const updated = await tx.crmLead.updateMany({
    where: { ...key, writeStatus: { notIn: [...LEAD_NOT_FOLLOWING] } },
    data: { agents: [agent], crmOwnerId, writeStatus: followedWriteStatus(crmOwnerId), writeError: null, writtenAt: null },
  });
  return updated.count > 0;
}

/** The decision about a record whose client was erased: gone, with its owners. */
export async function deleteLead(tx: Tx, key: LeadKey): Promise<void> {
  await tx.crmLead.deleteMany({ where: key });
}
