import type { Message, UnmatchedInbound } from '../generated/prisma/client';
import { messageReason } from './message-reason';

const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

/**
 * A message as an operator sees it (`GET /admin/messages/{id}`): whose it is, where it is and why it
 * ended so, with its times. Not its phone, name or text: explaining a failure needs none of them, and
 * they stay the user's (GET /messages/{_id} answers them to the user).
 */
export const operatorMessageView = (m: Message & { client: { id: string } | null }) => ({
  _id: m.id,
  business: m.business,
  user: m.ownerId,
  client: m.client?.id ?? null,
  direction: m.direction,
  status: m.status,
  reason: messageReason(m),
  error_code: m.errorCode,
  provider: m.provider,
  workflow_id: m.workflowId,
  batch_id: m.batchId,
  send_at: m.sendAt.toISOString(),
  deferred_until: isoOrNull(m.deferredUntil),
  created_at: m.createdAt.toISOString(),
  updated_at: m.updatedAt.toISOString(),
  dispatched_at: isoOrNull(m.dispatchedAt),
  sent_at: isoOrNull(m.sentAt),
  delivered_at: isoOrNull(m.deliveredAt),
  canceled_at: isoOrNull(m.canceledAt),
  suppressed_at: isoOrNull(m.suppressedAt),
  received_at: isoOrNull(m.receivedAt),
});

/** A text no message explains, as its business lists it: who sent it to which of its numbers, what, and whether several of its users could own it. */
export const unmatchedInboundView = (u: UnmatchedInbound) => ({
  _id: u.id,
  provider: u.provider,
  from: u.phone,
  to: u.sender,
  text: u.text,
  ambiguous: u.ambiguous,
  received_at: u.receivedAt.toISOString(),
  created_at: u.createdAt.toISOString(),
});

/** The same as the operator lists it, with the business whose number it went to (null: the shared sender). */
export const operatorUnmatchedInboundView = (u: UnmatchedInbound) => ({ ...unmatchedInboundView(u), business: u.business });
