import { optOutChannelOf } from './channels';

/*
 * Whether an opt-out forbids a message (docs/messages.md, "Replies and opt-outs"), written once:
 * src/db/opt-outs.ts says it in SQL for the statements that suppress a due message where it stands.
 */

/** An opt-out record as stored: of one phone, one channel, and a sender or a whole business. */
export interface OptOutRecord {
  phone: string;
  sender: string;
  /** The business whose own number `sender` is (a record of it blocks all its numbers); null for the shared sender. */
  business: string | null;
  channel: string;
  status: 'opted_out' | 'opted_in';
}

/** Where a message goes. */
export interface MessageAddress {
  phone: string | null;
  sender: string | null;
  business: string;
  channel: string;
}

/** The record forbids the message: the same phone, opted out, on the message's opt-out channel, for the message's business or its shared sender. */
export function forbidsMessage(record: OptOutRecord, message: MessageAddress): boolean {
  const scoped = record.business === null ? record.sender === message.sender : record.business === message.business;
  return record.phone === message.phone && record.status === 'opted_out' && record.channel === optOutChannelOf(message.channel) && scoped;
}
