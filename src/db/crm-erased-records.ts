import type { Prisma as Db } from '../generated/prisma/client';
import type { Prisma } from './prisma';

/*
 * Every change of `crm_erased_records`: a CRM record whose client was erased, kept as a keyed digest of
 * (business, CRM, record id) only (SecretBox.digests, the sealing key's first), written in the erasure's
 * transaction. Its later events and sweeps find it and are ignored; the id cannot be read back from it.
 */

type Tx = Db.TransactionClient;

export interface ErasedRecordKey {
  business: string;
  crm: string;
  /** The record's digest under each key of SECRETS_KEY, the sealing key's first. */
  digests: string[];
}

/**
 * Serialises an erasure of the record with anything that would make its client again (the lead's sync
 * of the client from the CRM), until the transaction ends: one of them sees the other's work.
 */
export async function lockErasedRecord(tx: Tx, key: ErasedRecordKey): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`crm-erased/${key.business}/${key.crm}/${key.digests[0]}`}, 0))`;
}

export async function recordErasedRecord(tx: Tx, key: ErasedRecordKey, now = new Date()): Promise<void> {
  await tx.crmErasedRecord.createMany({ data: [{ business: key.business, crm: key.crm, digest: key.digests[0], erasedAt: now }], skipDuplicates: true });
}

export async function isErasedRecord(db: Prisma | Tx, key: ErasedRecordKey): Promise<boolean> {
  return (await db.crmErasedRecord.count({ where: { business: key.business, crm: key.crm, digest: { in: key.digests } } })) > 0;
}

/** Of these digests (of records of one business and CRM), the ones of erased records. */
export async function erasedDigests(prisma: Prisma, business: string, crm: string, digests: string[]): Promise<Set<string>> {
  if (digests.length === 0) return new Set();
  const rows = await prisma.crmErasedRecord.findMany({ where: { business, crm, digest: { in: digests } }, select: { digest: true } });
  return new Set(rows.map((row) => row.digest));
}
