/*
 * When a scheduled message is due (docs/messages.md, "Quiet hours"): its `send_at`, unless its send window
 * deferred it to a later `deferred_until`. A window only ever delays: a `deferred_until` before `send_at`
 * changes nothing. The message's start delay, its run's timer and its batch's claims all read it here;
 * src/db/message-due.ts says it in SQL for the batch's set-based claims.
 */

export interface DueFields {
  sendAt: Date;
  deferredUntil: Date | null;
}

/** When the message goes out: the later of `sendAt` and `deferredUntil`. */
export function messageDueAt(message: DueFields): Date {
  const { sendAt, deferredUntil } = message;
  return deferredUntil !== null && deferredUntil > sendAt ? deferredUntil : sendAt;
}
