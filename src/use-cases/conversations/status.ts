import type { Client as TemporalClient } from '@temporalio/client';
import { z } from 'zod';
import { changeStatus, holdersOf, type StatusChange } from '../../db/conversations';
import { conversationEvent, withEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { UUID } from '../input/page';
import { tellClientRun, wakeClientRun } from '../../starters/client-workflow';
import { conversationView } from '../../views/conversation';
import { Conflict, NotFound } from '../errors';
import { parseBody } from '../input/validation';
import { CONVERSATION_NOT_FOUND } from './owned-conversation';

export interface ConversationDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  log?: (error: unknown) => void;
}

const YEAR_MS = 366 * 24 * 60 * 60 * 1000;

export const SNOOZE_CLOSED = 'A closed conversation cannot be snoozed: reopen it first';

const snoozeBody = z.object({
  until: z
    .string({ error: 'is required: the date-time the conversation opens again' })
    .refine((raw) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(raw) && !Number.isNaN(Date.parse(raw)), 'must be an ISO 8601 date-time with a zone, such as 2030-01-01T09:00:00Z')
    .transform((raw) => new Date(raw))
    .refine((until) => until.getTime() > Date.now(), 'must be in the future')
    .refine((until) => until.getTime() <= Date.now() + YEAR_MS, 'must be within a year'),
});

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
  const { until } = parseBody(snoozeBody, body);
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
