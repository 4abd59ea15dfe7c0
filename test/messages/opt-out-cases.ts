import type { MessageAddress, OptOutRecord } from '../../src/domain/opt-outs';

/*
 * Whether an opt-out record forbids a message, one row per case: the rule's unit test and the SQL's test
 * read the same table. A case is written in names (`World`): the SQL test gives each its own phones,
 * numbers and businesses.
 */

export interface World {
  phone: string;
  otherPhone: string;
  business: string;
  otherBusiness: string;
  sender: string;
  otherSender: string;
}

export interface OptOutCase {
  record: OptOutRecord;
  /** The message's business is always `w.business`. */
  message: Omit<MessageAddress, 'business'>;
}

type Make = (w: World) => OptOutCase;

const ownRecord = (w: World, over: Partial<OptOutRecord> = {}): OptOutRecord => ({ phone: w.phone, sender: w.sender, business: w.business, channel: 'sms', status: 'opted_out', ...over });
const sms = (w: World, over: Partial<OptOutCase['message']> = {}) => ({ phone: w.phone, sender: w.sender, channel: 'sms', ...over });

export const OPT_OUT_CASES: readonly (readonly [string, Make, boolean])[] = [
  ['a STOP to the business\'s number, an SMS from it', (w) => ({ record: ownRecord(w), message: sms(w) }), true],
  ['opted in again', (w) => ({ record: ownRecord(w, { status: 'opted_in' }), message: sms(w) }), false],
  ['another phone\'s opt-out', (w) => ({ record: ownRecord(w, { phone: w.otherPhone }), message: sms(w) }), false],
  ['business-wide: an SMS from another of its numbers', (w) => ({ record: ownRecord(w), message: sms(w, { sender: w.otherSender }) }), true],
  ['business-wide: a message with no sender', (w) => ({ record: ownRecord(w), message: sms(w, { sender: null }) }), true],
  ['another business\'s opt-out', (w) => ({ record: ownRecord(w, { business: w.otherBusiness }), message: sms(w) }), false],
  ['the shared sender\'s opt-out, a message from it', (w) => ({ record: ownRecord(w, { business: null }), message: sms(w) }), true],
  ['the shared sender\'s opt-out, a message from another number', (w) => ({ record: ownRecord(w, { business: null }), message: sms(w, { sender: w.otherSender }) }), false],
  ['the shared sender\'s opt-out, a message with no sender', (w) => ({ record: ownRecord(w, { business: null }), message: sms(w, { sender: null }) }), false],
  ['an SMS opt-out, a WhatsApp message', (w) => ({ record: ownRecord(w), message: sms(w, { channel: 'whatsapp' }) }), false],
  ['a WhatsApp opt-out, an SMS (or MMS)', (w) => ({ record: ownRecord(w, { channel: 'whatsapp' }), message: sms(w) }), false],
  ['a WhatsApp opt-out, a WhatsApp message', (w) => ({ record: ownRecord(w, { channel: 'whatsapp' }), message: sms(w, { channel: 'whatsapp' }) }), true],
  ['an SMS opt-out (a STOP by either of the fallback pair), an RCS message', (w) => ({ record: ownRecord(w), message: sms(w, { channel: 'rcs' }) }), true],
  ['a WhatsApp opt-out, an RCS message', (w) => ({ record: ownRecord(w, { channel: 'whatsapp' }), message: sms(w, { channel: 'rcs' }) }), false],
  ['the shared sender\'s WhatsApp opt-out, a WhatsApp message from it', (w) => ({ record: ownRecord(w, { business: null, channel: 'whatsapp' }), message: sms(w, { channel: 'whatsapp' }) }), true],
];
