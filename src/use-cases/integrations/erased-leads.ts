import { deleteClientAssignRequests } from '../../db/assign-requests';
import { eraseClientWorkflowIds } from '../../db/assignments';
import { findBusinessConnector } from '../../db/crm-connectors';
import { isErasedRecord, lockErasedRecord, recordErasedRecord, type ErasedRecordKey } from '../../db/crm-erased-records';
import { deleteRecordEvents } from '../../db/crm-inbound-events';
import { deleteLead, findLead } from '../../db/crm-leads';
import type { Prisma } from '../../db/prisma';
import { forgetDecisionKey } from '../../db/routing-decisions';
import type { Scope } from '../../db/scope';
import { crmRecordOfClientId } from '../../domain';
import type { Prisma as Db } from '../../generated/prisma/client';
import type { SecretBox } from '../../secrets/secret-box';
import { leadRoutingKey } from './choose-owner';

/*
 * A CRM lead's client erased: what the CRM side kept of its record goes (the decision and its owners,
 * the record's events, the assign-agents requests, the workflow ids and routing key naming it), and the
 * record is remembered by a keyed digest only, so its later events are ignored and never make the
 * client again.
 */

const PURPOSE = 'crm-erased-record';

export function erasedRecordKey(secrets: SecretBox, record: { business: string; crm: string; recordId: string }): ErasedRecordKey {
  return { business: record.business, crm: record.crm, digests: secrets.digests(`${record.business}\n${record.crm}\n${record.recordId}`, PURPOSE) };
}

/** Whether the record's client was erased. */
export function isErasedLead(db: Prisma | Db.TransactionClient, secrets: SecretBox, record: { business: string; crm: string; recordId: string }): Promise<boolean> {
  return isErasedRecord(db, erasedRecordKey(secrets, record));
}

/**
 * Inside the erasure's transaction, before its events are recorded (so no `holder_changed` is made for
 * the lead): when the client is the lead of a record of a connector (the caller's connector, or a
 * decision of the caller's), its CRM traces are scrubbed and the record is remembered as erased. Another
 * user's client that merely has such an id leaves the connector's lead alone.
 */
export async function forgetErasedLead(tx: Db.TransactionClient, secrets: SecretBox, scope: Scope, client: { pk: string; id: string }, now: Date): Promise<void> {
  const record = crmRecordOfClientId(client.id);
  if (!record) return;
  const leadKey = { business: scope.business, crm: record.crm, recordId: record.recordId };
  const lead = await findLead(tx, leadKey);
  const connector = await findBusinessConnector(tx, scope.business, record.crm);
  const ours = lead ? lead.ownerId === scope.ownerId && lead.clientId === client.id : connector?.ownerId === scope.ownerId;
  if (!ours) return;
  const key = erasedRecordKey(secrets, leadKey);
  await lockErasedRecord(tx, key);
  await deleteLead(tx, leadKey);
  await deleteRecordEvents(tx, leadKey.business, leadKey.crm, leadKey.recordId);
  await deleteClientAssignRequests(tx, scope.business, client.id);
  await eraseClientWorkflowIds(tx, client.pk);
  await forgetDecisionKey(tx, client.pk, leadRoutingKey(record.crm, record.recordId));
  await recordErasedRecord(tx, key, now);
}
