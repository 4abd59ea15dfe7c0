import type { MessageBatch } from '../generated/prisma/client';
import { MESSAGE_STATUSES, type MessageStatus } from '../domain';

/** `GET /messages/batch/{_id}`: the batch and its messages counted by status (every outbound status, 0 included). */
export const messageBatchView = (b: MessageBatch & { counts: Partial<Record<MessageStatus, number>> }) => ({
  _id: b.id,
  send_at: b.sendAt.toISOString(),
  send_window: b.sendWindow ?? null,
  workflow_id: b.workflowId,
  total: b.total,
  accepted: b.accepted,
  counts: Object.fromEntries(MESSAGE_STATUSES.filter((s) => s !== 'received').map((s) => [s, b.counts[s] ?? 0])),
  created_at: b.createdAt.toISOString(),
  finished_at: b.finishedAt?.toISOString() ?? null,
});
