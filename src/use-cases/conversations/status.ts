import type { Client as TemporalClient } from '@temporalio/client';
import { changeStatus, holdersOf, type StatusChange } from '../../db/conversations';
import { conversationEvent, withEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { UUID } from '../input/page';
import { tellClientRun, wakeClientRun } from '../../starters/client-workflow';
import { conversationView } from '../../views/conversation';
import { Conflict, NotFound } from '../errors';
import { SnoozeRequest } from './contract';
import { parseBody } from '../input/validation';
import { CONVERSATION_NOT_FOUND } from './owned-conversation';

export interface ConversationDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  log?: (error: unknown) => void;
}

export const SNOOZE_CLOSED = 'A closed conversation cannot be snoozed: reopen it first';


/**
 * Moves the caller's conversation to `change` in one transaction with its event (none when it was there
 * already). A snooze's clock is held by the client's run, started if none is open; a conversation that
 * leaves a snooze tells the run to drop it.
 */
async function moveConversation(deps: ConversationDeps, scope: Scope, id: string, change: StatusChange) {
  const now = new Date();
  const moved = UUID.test(id)
    ? await withEvents(deps.prisma, async (tx, record) => {
        const result = await changeStatus(tx, scope, id, change, now);
        if (!result || 'refused' in result) return result;
        const assignees = (await holdersOf(tx, [result.row.clientPk], now)).get(result.row.clientPk) ?? [];
        if (result.event) await record(conversationEvent(result.event, result.row, assignees, 'api'));
        return { ...result, assignees };
      })
    : null;
  if (!moved) throw new NotFound(CONVERSATION_NOT_FOUND);
  if ('refused' in moved) throw new Conflict(SNOOZE_CLOSED);
  const keys = { business: scope.business, clientId: moved.row.clientId, clientPk: moved.row.clientPk };
  // Always, also for a repeat: a snooze whose run could not be told the first time is healed by asking again.
  if (change.to === 'snoozed') await wakeClientRun(deps.temporal, deps.taskQueue, keys, ['conversations']);
  else if (moved.changed) await tellClientRun(deps.temporal, keys, ['conversations'], deps.log);
  return conversationView(moved.row, moved.assignees, null);
}

/** `POST /conversations/{_id}/snooze { until }`: snoozed until then, when it opens again by itself (or at once on a reply). */
export function snoozeConversation(deps: ConversationDeps, scope: Scope, id: string, body: unknown) {
  const { until } = parseBody(SnoozeRequest, body);
  return moveConversation(deps, scope, id, { to: 'snoozed', until });
}

/** `POST /conversations/{_id}/close`: closed; nothing waits on it until the client texts again. */
export function closeConversation(deps: ConversationDeps, scope: Scope, id: string) {
  return moveConversation(deps, scope, id, { to: 'closed' });
}

/** `POST /conversations/{_id}/reopen`: open again, from a snooze or closed. */
export function reopenConversation(deps: ConversationDeps, scope: Scope, id: string) {
  return moveConversation(deps, scope, id, { to: 'open' });
}
