import type { Client as TemporalClient } from '@temporalio/client';
import { cancelScheduledMessage, findMessage, type MessageWithClient } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { Conflict } from '../errors';
import type { Scope } from '../../db/scope';
import { findOwnedMessage } from './owned-message';
import { cancelMessageWorkflow } from '../../starters/send-message-workflow';

export interface CancelDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
}

/** Cancels a message that has not left yet; canceling it again answers the same, later is a 409. */
export async function cancelMessage(deps: CancelDeps, scope: Scope, id: string): Promise<MessageWithClient> {
  const message = await findOwnedMessage(deps.prisma, scope, id);
  const canceled = await cancelIfScheduled(deps, message);
  const current = await findOwnedMessage(deps.prisma, scope, message.id);
  if (!canceled && current.status !== 'canceled') {
    throw new Conflict(`Message ${message.id} can no longer be canceled: it is ${current.status}`);
  }
  return current;
}

/** scheduled → canceled, then cancels the workflow so it ends (as Canceled); false when the message had already left `scheduled`. */
export async function cancelIfScheduled(deps: CancelDeps, message: { id: string }, by: 'api' | 'client_deleted' = 'api'): Promise<boolean> {
  const canceled = await cancelScheduledMessage(deps.prisma, message.id, new Date(), by);
  if (canceled) {
    const row = await findMessage(deps.prisma, message.id);
    // A batch's message has no run of its own: its batch's run skips it when it claims its chunk.
    if (row && row.batchId === null) await cancelMessageWorkflow(deps.temporal, row);
  }
  return canceled;
}
