import type { Client as TemporalClient } from '@temporalio/client';
import { cancelScheduledMessage, type MessageWithClient } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import { conflict } from '../http/problem';
import type { Scope } from '../http/scope';
import { findOwnedMessage } from './owned-message';
import { notifyMessageWorkflow } from './workflow';

export interface CancelDeps {
  prisma: Prisma;
  temporal: TemporalClient;
}

/** Cancels a message that has not left yet; canceling it again answers the same, later is a 409. */
export async function cancelMessage(deps: CancelDeps, scope: Scope, id: string): Promise<MessageWithClient> {
  const message = await findOwnedMessage(deps.prisma, scope, id);
  const canceled = await cancelScheduledMessage(deps.prisma, message.id);
  const current = await findOwnedMessage(deps.prisma, scope, message.id);
  if (!canceled && current.status !== 'canceled') {
    throw conflict(`Message ${message.id} can no longer be canceled: it is ${current.status}`);
  }
  if (canceled) await notifyMessageWorkflow(deps.temporal, message.workflowId);
  return current;
}
