import type { MessageListInstanceCreateOptions } from 'twilio/lib/rest/api/v2010/account/message';
import { CarrierRejected, type CarrierSend } from '../types';
import { twilioAddress } from './addresses';

/*
 * A message as Twilio's Messages API takes it: `To` and `From` (`whatsapp:`-prefixed on WhatsApp) or
 * `MessagingServiceSid` (with the prefixed `To`: the service picks its WhatsApp sender); then either a
 * template — `ContentSid` and `ContentVariables` (a JSON object of variable name → value), no `Body` nor
 * `MediaUrl`, which Twilio refuses with a template — or `Body` and the media as repeated `MediaUrl`
 * (a picture alone goes without `Body`).
 */

/** Where messages go out from: a messaging service, else a number. */
export type Origin = { messagingServiceSid: string } | { from: string };

/** What a send or a reply asks of Twilio. */
export type Outgoing = Pick<CarrierSend, 'to' | 'text' | 'channel' | 'media' | 'template'>;

export function createOptions(origin: Origin, message: Outgoing, statusCallback?: string): MessageListInstanceCreateOptions {
  const sender = 'from' in origin ? { from: twilioAddress(message.channel, origin.from) } : { messagingServiceSid: origin.messagingServiceSid };
  return { to: twilioAddress(message.channel, message.to), ...sender, ...contentOf(message), ...(statusCallback ? { statusCallback } : {}) };
}

function contentOf(message: Outgoing): Partial<MessageListInstanceCreateOptions> {
  if (message.template) {
    const { ref, variables } = message.template;
    if (!('contentSid' in ref)) throw new CarrierRejected('template-ref', 'Twilio sends a WhatsApp template by its Content SID (HX…), not by name and language');
    return { contentSid: ref.contentSid, ...(variables.length ? { contentVariables: JSON.stringify(Object.fromEntries(variables.map((variable) => [variable.name, variable.value]))) } : {}) };
  }
  const media = message.media.length ? { mediaUrl: [...message.media] } : {};
  return message.text || !message.media.length ? { body: message.text, ...media } : media;
}
