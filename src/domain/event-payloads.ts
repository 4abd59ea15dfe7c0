import type { Scope } from './common';
import type { EventReason, EventType } from './events';

/*
 * What an event is before it is written: its owner, the client it is about, its type, and its data (the
 * resource as its GET route shows it, with the reason). Built by src/views/event-payloads.ts, written by
 * src/db/events.ts in the transaction of the change it reports.
 */

export interface NewEvent {
  scope: Scope;
  /** The client the event is about: its internal key (for the feed's filter) and its id (for search attributes). */
  clientPk: string | null;
  clientId: string | null;
  type: EventType;
  data: Record<string, unknown> & { reason: EventReason };
}

/** Events of one owner written together (a batch's messages moving at once): no scope of their own. */
export type OwnerEvent = Omit<NewEvent, 'scope'>;

/** Whose event it is and which client it is about. */
export interface EventSubject {
  business: string;
  ownerId: string;
  clientPk: string | null;
  clientId: string | null;
}

/** An event about `subject`: `data` with the reason last, so a view's own `reason` never hides it. */
export function eventOf(type: EventType, subject: EventSubject, data: Record<string, unknown>, reason: EventReason): NewEvent {
  return { scope: { business: subject.business, ownerId: subject.ownerId }, clientPk: subject.clientPk, clientId: subject.clientId, type, data: { ...data, reason } };
}
