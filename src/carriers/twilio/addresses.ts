import type { Channel } from '../types';

/*
 * Twilio's addresses: a number is `+14155550100` on SMS (and MMS) and `whatsapp:+14155550100` on
 * WhatsApp, in requests, in its message records and in its callbacks alike. On RCS a client is
 * `rcs:+14155550100` and our RCS sender `rcs:<agent>` in callbacks; an RCS send names the client by its
 * plain number, so that Twilio may fall back to SMS. The rest of the service sees only the E.164 number
 * (or, for our RCS sender, the agent as registered) and the channel.
 */

const WHATSAPP = 'whatsapp:';
const RCS = 'rcs:';

/** `number` as Twilio names it on `channel` in a request (RCS: the plain number, which lets Twilio fall back). */
export const twilioAddress = (channel: Channel, number: string) => (channel === 'whatsapp' ? `${WHATSAPP}${number}` : number);

/**
 * A Twilio address as its channel and number; undefined for a channel we do not carry (`messenger:…`).
 * Our RCS sender keeps its prefix (`rcs:acme_agent`): that is how a number's `rcs_agent` is registered.
 */
export function parseTwilioAddress(address: string | undefined): { channel: Channel; number: string } | undefined {
  if (address === undefined) return undefined;
  if (address.startsWith(WHATSAPP)) return { channel: 'whatsapp', number: address.slice(WHATSAPP.length) };
  if (address.startsWith(RCS)) {
    const rest = address.slice(RCS.length);
    return { channel: 'rcs', number: rest.startsWith('+') ? rest : address };
  }
  return /^[a-z]+:/i.test(address) ? undefined : { channel: 'sms', number: address };
}
