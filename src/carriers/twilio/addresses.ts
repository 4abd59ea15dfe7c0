import type { Channel } from '../types';

/*
 * Twilio's addresses: a number is `+14155550100` on SMS (and MMS) and `whatsapp:+14155550100` on
 * WhatsApp, in requests, in its message records and in its callbacks alike. The rest of the service
 * sees only the E.164 number and the channel.
 */

const WHATSAPP = 'whatsapp:';

/** `number` as Twilio names it on `channel`. */
export const twilioAddress = (channel: Channel, number: string) => (channel === 'whatsapp' ? `${WHATSAPP}${number}` : number);

/** A Twilio address as its channel and number; undefined for a channel we do not carry (`messenger:…`, `rcs:…`). */
export function parseTwilioAddress(address: string | undefined): { channel: Channel; number: string } | undefined {
  if (address === undefined) return undefined;
  if (address.startsWith(WHATSAPP)) return { channel: 'whatsapp', number: address.slice(WHATSAPP.length) };
  return /^[a-z]+:/i.test(address) ? undefined : { channel: 'sms', number: address };
}
