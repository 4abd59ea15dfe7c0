import type { Client as TemporalClient } from '@temporalio/client';
import { endActiveIn, eraseClientAssignmentNotes } from '../../db/assignments';
import { eraseClientRow, lockLiveClient } from '../../db/clients';
import { clientDeletedEvent, eraseClientEvents, withEvents, type NewEvent } from '../../db/events';
import { eraseClientMessages, scheduledMessagesOf } from '../../db/messages';
import { eraseClientConversations } from '../../db/conversations';
import { eraseClientConsents } from '../../db/client-consents';
import type { Prisma } from '../../db/prisma';
import { stopClientRotations } from '../../db/rotations';
import { keepOptOutsVisible } from '../../db/opt-outs';
import { pushWalSoon } from '../../db/wal';
import { eraseClientDecisions } from '../../db/routing-decisions';
import type { Scope } from '../../db/scope';
import type { SecretBox } from '../../secrets/secret-box';
import { wakeRotation } from '../../starters/rotation-workflow';
import { afterAssignmentsEnded } from '../assignments/after-change';
import { NotFound } from '../errors';
import { forgetErasedLead } from '../integrations/erased-leads';
import { cancelIfScheduled } from '../messages/cancel';
import { findOwnedClient } from '../clients/owned-client';

export interface EraseClientDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  /** Keys the digest that remembers an erased CRM lead's record. */
  secrets: SecretBox;
  log?: (error: unknown) => void;
}

/**
 * `DELETE /clients/{_id}`, the client's erasure. Its messages not yet sent are canceled first, through
 * the cancel path (their runs end). Then, in one transaction holding the client: its row keeps only its
 * keys (the id is free again), its active assignments end (`ended_by` client_deleted), its rotation
 * stops, its places in routing queues are given up, its messages and events lose its phone, name and texts, its conversations go with their notes,
 * the opt-outs of its phones stay (and stay listed to the caller: keepOptOutsVisible), a CRM lead's record is forgotten (forgetErasedLead), and `client.deleted` is recorded. Last, what
 * follows the ended assignments (after-change.ts), the rotation runs are woken so they end, a message a racing send accepted meanwhile is
 * canceled and erased too, and the WAL is switched and checkpointed soon after (pushWalSoon: erasures
 * in a burst share one checkpoint).
 */
export async function eraseClient(deps: EraseClientDeps, scope: Scope, clientId: string): Promise<void> {
  const client = await findOwnedClient(deps.prisma, scope, clientId);
  await cancelScheduled(deps, client.pk);
  const phones = client.phone === null ? [] : [client.phone];
  const { assignments, rotations } = await withEvents(deps.prisma, async (tx, record) => {
    const live = await lockLiveClient(tx, scope, client.id);
    if (!live || live.pk !== client.pk) throw new NotFound('Client not found');
    const now = new Date();
    const events: NewEvent[] = [];
    // Notes first, so that the events of the ends do not carry them.
    await eraseClientAssignmentNotes(tx, client.pk);
    const assignments = await endActiveIn(tx, { clientPk: client.pk }, 'client_deleted', now, events);
    const rotations = await stopClientRotations(tx, client.pk, now, events);
    await eraseClientDecisions(tx, client.pk, now);
    await eraseClientConsents(tx, client.pk);
    // Before the ends are recorded, so that no `holder_changed` is made for a lead being forgotten.
    await forgetErasedLead(tx, deps.secrets, scope, client, now);
    const allPhones = [...phones, ...(await phonesOfMessages(tx, client.pk))];
    // Before the messages lose the phones that made the records visible to the caller.
    await keepOptOutsVisible(tx, scope, allPhones);
    await eraseMessagesAndEvents(tx, client.pk, allPhones);
    const erased = await eraseClientRow(tx, client.pk, now);
    events.push(clientDeletedEvent(erased));
    // Last, once every row it changes is locked (see withEvents).
    for (const event of events) await record(event);
    return { assignments, rotations };
  });
  await afterAssignmentsEnded(deps, scope, assignments.map((a) => ({ business: a.client.business, clientId: a.client.id, workflowId: a.workflowId })), 'client_deleted');
  for (const r of rotations) await wakeRotation(deps.temporal, r, deps.log);
  // A send that found the client just before it was erased may have stored its message since.
  if (await cancelScheduled(deps, client.pk)) {
    await withEvents(deps.prisma, async (tx) => eraseMessagesAndEvents(tx, client.pk, [...phones, ...(await phonesOfMessages(tx, client.pk))]));
  }
  // Out of the write-ahead log too, where the database allows it; the erasure stands either way.
  pushWalSoon(deps.prisma, deps.log);
}

type Tx = Parameters<Parameters<typeof withEvents>[1]>[0];

async function cancelScheduled(deps: EraseClientDeps, clientPk: string): Promise<number> {
  const scheduled = await scheduledMessagesOf(deps.prisma, clientPk);
  for (const message of scheduled) await cancelIfScheduled(deps, message, 'client_deleted');
  return scheduled.length;
}

/** The phones the client's messages went to or came from: one given as `client_phone` may differ from its stored one. */
async function phonesOfMessages(tx: Tx, clientPk: string): Promise<string[]> {
  const rows = await tx.message.findMany({ where: { clientPk, phone: { not: null } }, select: { phone: true }, distinct: ['phone'] });
  return rows.map((r) => r.phone!);
}

async function eraseMessagesAndEvents(tx: Tx, clientPk: string, phones: string[]) {
  await eraseClientMessages(tx, clientPk);
  await eraseClientConversations(tx, clientPk);
  await eraseClientEvents(tx, clientPk, phones);
}
