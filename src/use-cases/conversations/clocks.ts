import type { Client as TemporalClient } from '@temporalio/client';
import { holdersOf } from '../../db/conversations';
import { endDueSnoozes, markOverdue, replyClockApplies, snoozesOf, waitingUnderReplyClock } from '../../db/conversation-clocks';
import { conversationEvent, withEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import { firstResponseDueAt, type ConversationClock, type WorkingHours } from '../../domain';
import { wakeClientRun } from '../../starters/client-workflow';

export interface ConversationClockDeps {
  prisma: Prisma;
  temporal: TemporalClient;
  taskQueue: string;
  log?: (error: unknown) => void;
}

/**
 * One step of a client's conversation clocks in its run. Every snooze of the client that has ended opens
 * its conversation again (`conversation.reopened`, reason `snooze`); every open conversation whose answer
 * is due under its reply clock (`next_response_within` of the policy that routed the client, counted in its
 * first holder's working hours when the policy checks them) is reported once per waiting period
 * (`conversation.overdue`, reason `reply_clock`, naming its holders). Returns the clocks still running. Only
 * rows still due move, so a late or repeated step changes nothing.
 */
export async function stepConversationClocks(prisma: Prisma, clientPk: string, now = new Date()): Promise<ConversationClock[]> {
  const pending: ConversationClock[] = [];
  await withEvents(prisma, async (tx, record) => {
    pending.length = 0;
    const reopened = await endDueSnoozes(tx, clientPk, now);
    const waiting = await waitingUnderReplyClock(tx, clientPk, now);
    if (reopened.length === 0 && waiting.length === 0) return;
    const holders = (await holdersOf(tx, [clientPk], now)).get(clientPk) ?? [];
    for (const row of reopened) await record(conversationEvent('conversation.reopened', row, holders, 'snooze'));
    for (const w of waiting) {
      const dueAt = firstResponseDueAt(w.waitingSince, w.within, w.workingHours, { workingHours: w.holderHours as WorkingHours | null, timezone: w.holderTimezone });
      if (dueAt && dueAt <= now) {
        const row = await markOverdue(tx, w.id, w.waitingSince, now);
        if (row) await record(conversationEvent('conversation.overdue', row, holders, 'reply_clock'));
      } else {
        pending.push({ conversationId: w.id, reason: 'overdue', dueAt: dueAt?.toISOString() ?? null });
      }
    }
  });
  const snoozes = (await snoozesOf(prisma, clientPk)).map((s): ConversationClock => ({ conversationId: s.conversationId, reason: 'snooze', dueAt: s.until.toISOString() }));
  return [...snoozes, ...pending];
}

/**
 * After a client's text that began a waiting period is committed: when a reply clock applies to the
 * client, its run (started if none is open) takes the clock. Best effort; a run that cannot be told now
 * is started by the reconciler from the rows.
 */
export async function startReplyClock(deps: ConversationClockDeps, keys: { business: string; clientId: string; clientPk: string }): Promise<void> {
  try {
    if (await replyClockApplies(deps.prisma, keys.clientPk)) await wakeClientRun(deps.temporal, deps.taskQueue, keys, ['conversations']);
  } catch (error) {
    deps.log?.(error);
  }
}
