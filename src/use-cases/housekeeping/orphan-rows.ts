import { activeAssignmentsChangedBefore } from '../../db/assignments';
import { clockedConversationsBefore } from '../../db/conversation-clocks';
import { openDecisionsBefore } from '../../db/first-response-clocks';
import { findBatch } from '../../db/message-batches';
import { unsentMessagesCreatedBefore } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import type { ReconcilerFilter } from '../../db/reconciler-filter';
import { activeRotationsChangedBefore } from '../../db/rotations';
import { policiesWaitingBefore } from '../../db/routing-decisions';

export type { ReconcilerFilter } from '../../db/reconciler-filter';

type Before = { before: Date; business?: string };

/**
 * The rows whose clock is a workflow, as the reconciler reads them a page at a time (a row is the truth,
 * its workflow its clock): what it compares with the runs Temporal has.
 */
export function orphanCandidates(prisma: Prisma) {
  return {
    assignments: (filter: ReconcilerFilter, afterId: string | undefined, take: number) => activeAssignmentsChangedBefore(prisma, filter, afterId, take),
    messages: (filter: ReconcilerFilter, afterId: string | undefined, take: number) => unsentMessagesCreatedBefore(prisma, filter, afterId, take),
    batch: (batchId: string) => findBatch(prisma, batchId),
    rotations: (filter: Before, afterKey: string | undefined, take: number) => activeRotationsChangedBefore(prisma, filter, afterKey, take),
    firstResponseClocks: (filter: Before, afterId: string | undefined, take: number) => openDecisionsBefore(prisma, filter, afterId, take),
    conversationClocks: (filter: Before & { since?: Date }, afterId: string | undefined, take: number) => clockedConversationsBefore(prisma, filter, afterId, take),
    waitingPolicies: (filter: Before) => policiesWaitingBefore(prisma, filter),
  };
}
