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

/** Where messages go out from: a messaging service (with the number RCS falls back to, when it has one), else a number. */
export type Origin = { messagingServiceSid: string; fallbackFrom?: string } | { from: string };

/** What a send or a reply asks of Twilio. */
export type Outgoing = Pick<CarrierSend, 'to' | 'text' | 'channel' | 'media' | 'template' | 'suggestions'>;

/**
 * RCS goes through the Messaging Service whose sender pool holds the RCS sender, to the plain number:
 * Twilio sends RCS where the handset takes it, else SMS/MMS from `FallbackFrom` (the business number).
 * Suggested replies need a content (`contentSid`: rcsContent).
 */
export function createOptions(origin: Origin, message: Outgoing, statusCallback?: string, contentSid?: string): MessageListInstanceCreateOptions {
  if (message.channel === 'rcs' && 'from' in origin) throw new CarrierRejected('rcs-sender', 'RCS goes through a Messaging Service whose sender pool holds the RCS sender: the number has none');
  const sender =
    'from' in origin
      ? { from: twilioAddress(message.channel, origin.from) }
      : { messagingServiceSid: origin.messagingServiceSid, ...(message.channel === 'rcs' && origin.fallbackFrom && { fallbackFrom: origin.fallbackFrom }) };
  const content = contentSid ? { contentSid } : contentOf(message);
  return { to: twilioAddress(message.channel, message.to), ...sender, ...content, ...(statusCallback ? { statusCallback } : {}) };
}

/**
 * The content an RCS message with suggested replies goes as (Twilio's Content API): `twilio/quick-reply`
 * (its body and one QUICK_REPLY action per suggestion, `id` the postback data), or `twilio/card` with its
 * one medium; and `twilio/text` (with `twilio/media`), what the SMS/MMS fallback carries.
 */
export function rcsContent(message: Pick<CarrierSend, 'id' | 'text' | 'media' | 'suggestions'>): { friendly_name: string; language: string; types: Record<string, unknown> } {
  const actions = (message.suggestions ?? []).map((suggestion) => ({ type: 'QUICK_REPLY', title: suggestion.text, id: suggestion.postbackData }));
  const rich = message.media.length > 0 ? { 'twilio/card': { title: message.text, media: [...message.media], actions } } : { 'twilio/quick-reply': { body: message.text, actions } };
  const fallback = message.media.length > 0 ? { 'twilio/media': { body: message.text, media: [...message.media] } } : { 'twilio/text': { body: message.text } };
  return { friendly_name: `rcs_${message.id.replace(/-/g, '_')}`, language: 'en', types: { ...rich, ...fallback } };
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
