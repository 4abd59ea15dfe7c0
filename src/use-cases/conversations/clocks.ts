import { endDueSnoozes, holdersOf, snoozesOf } from '../../db/conversations';
import { conversationEvent, withEvents } from '../../db/events';
import type { Prisma } from '../../db/prisma';
import type { SnoozeClock } from '../../domain';

/**
 * One step of a client's conversation clocks in its run: every snooze of the client that has ended opens
 * its conversation again (`conversation.reopened`, reason `snooze`), and the snoozes still running are
 * returned. Only a row still snoozed and due moves, so a late or repeated step changes nothing.
 */
export async function stepConversationClocks(prisma: Prisma, clientPk: string, now = new Date()): Promise<SnoozeClock[]> {
  await withEvents(prisma, async (tx, record) => {
    const reopened = await endDueSnoozes(tx, clientPk, now);
    if (reopened.length === 0) return;
    const assignees = (await holdersOf(tx, [clientPk], now)).get(clientPk) ?? [];
    for (const row of reopened) await record(conversationEvent('conversation.reopened', row, assignees, 'snooze'));
  });
  return snoozesOf(prisma, clientPk);
}
