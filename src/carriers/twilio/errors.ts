import { OUTSIDE_WHATSAPP_WINDOW } from '../../domain/channels';
import { CarrierRejected, CarrierUnavailable } from '../types';

/*
 * Twilio's documented error codes (twilio.com/docs/api/errors), in our own words: what Twilio answered
 * is never kept, since its message may quote the phone number or the text. Codes that say "not now"
 * (throttled, a queue full, Twilio itself failing) are retried; every other refusal is final. WhatsApp's
 * own codes (Meta's, 13xxxx) are listed where Twilio passes them on.
 */

const FINAL: Readonly<Record<string, string>> = {
  '20003': 'Twilio refused the credentials this deployment sends with',
  '20404': 'Twilio does not know the account or resource this deployment names',
  '21211': 'The recipient number is not a valid phone number',
  '21212': 'The sender number is not a valid phone number',
  '21214': 'The recipient number cannot be reached',
  '21217': 'The recipient number does not appear to be valid',
  '21408': 'The Twilio account may not send to the recipient number\'s region',
  '21602': 'The text is empty',
  '21603': 'The message names no sender (From or MessagingServiceSid)',
  '21604': 'The message names no recipient',
  '21606': 'The sender number is not a message-capable number of this Twilio account',
  '21609': 'The status callback URL is not valid',
  '21610': 'The recipient has unsubscribed from this sender (texted STOP)',
  '21612': 'Twilio cannot route a text from this sender to the recipient number',
  '21614': 'The recipient number is not a mobile number',
  '21617': 'The text is longer than Twilio accepts',
  '21620': 'A media URL is not a URL Twilio can fetch',
  '21623': 'The message carries more media files than Twilio accepts',
  '21655': 'The template (Content SID) is not one of this Twilio account',
  '21656': 'The template\'s variables (ContentVariables) are not valid: each must have a value',
  '21660': 'The sender number does not belong to this Twilio account',
  '21701': 'The messaging service is not valid',
  '21703': 'The messaging service has no sender for this recipient',
  '21910': 'The sender and the recipient are not on the same channel (SMS or WhatsApp)',
  '30003': 'The recipient\'s handset is unreachable',
  '30004': 'The recipient blocked this sender',
  '30005': 'The recipient number is unknown or no longer in service',
  '30006': 'The recipient number is a landline or cannot receive texts',
  '30007': 'The recipient\'s carrier filtered the text (spam or policy)',
  // US A2P registration: the sender's registration forbids the text (its registration is read again at once).
  '30032': 'The sender is a toll-free number that is not verified',
  '30034': 'The sender is not in an approved US A2P 10DLC campaign (unregistered number)',
  '30035': 'The sender\'s US A2P 10DLC registration is not complete yet',
  // MMS
  '30019': 'The media are larger than the recipient\'s carrier accepts',
  '11751': 'The media are larger than Twilio accepts for one message',
  '12300': 'A media URL answered with a content type Twilio does not accept',
  // WhatsApp through Twilio
  '63003': 'The recipient number has no WhatsApp account, or it is inactive',
  '63007': 'The sender is not a WhatsApp sender of this Twilio account',
  '63016': OUTSIDE_WHATSAPP_WINDOW,
  '63024': 'WhatsApp refused the recipient (not a valid WhatsApp user, or WhatsApp\'s terms not accepted)',
  '63027': 'The WhatsApp template does not exist in this language or is not approved',
  '63028': 'The template\'s variables do not match the ones it declares',
  '63032': 'WhatsApp withheld the message from this recipient (one of Meta\'s experiments)',
  '63049': 'Meta chose not to deliver this WhatsApp marketing message',
  // WhatsApp's own (Meta's) codes
  '131026': 'WhatsApp could not deliver the message to this recipient',
  '131047': OUTSIDE_WHATSAPP_WINDOW,
  '132000': 'The template\'s variables do not match the ones it declares',
  '132001': 'The WhatsApp template does not exist in this language or is not approved',
  '132015': 'The WhatsApp template is paused for low quality',
  '132016': 'The WhatsApp template was disabled',
};

/** Throttled, a full queue, or Twilio (or WhatsApp) failing: worth another attempt. */
const TRANSIENT: Readonly<Record<string, string>> = {
  '20429': 'Twilio is throttling this account\'s requests',
  '20500': 'Twilio failed (internal error)',
  '20503': 'Twilio is unavailable',
  '21611': 'The sender\'s queue at Twilio is full',
  '30001': 'The sender\'s queue at Twilio overflowed',
  '30002': 'The Twilio account was suspended',
  '30008': 'The message failed for a reason the carrier did not give',
  '63018': 'The sender reached WhatsApp\'s rate limit',
  '130429': 'The sender reached WhatsApp\'s throughput limit',
  '131056': 'Too many WhatsApp messages to this recipient from this sender in a short time',
};

/** The sender's US A2P registration (10DLC, toll-free) forbids the text. */
const REGISTRATION = new Set(['30032', '30034', '30035']);

export const isTwilioRegistrationCode = (code: string) => REGISTRATION.has(code);

/** The recipient unsubscribed: the refusal records an opt-out too. */
const OPT_OUT = new Set(['21610']);

/** Twilio's code for a recipient who unsubscribed from this sender. */
export const isTwilioOptOutCode = (code: string | undefined) => code !== undefined && OPT_OUT.has(code);

/** Whether a Twilio error code says "not now" (another attempt may go). */
export const isTwilioTransientCode = (code: string) => Object.hasOwn(TRANSIENT, code);

/** What a Twilio error code means, in our words (for receipts' codes too). */
export function twilioCodeMeaning(code: string): string | undefined {
  if (Object.hasOwn(FINAL, code)) return FINAL[code];
  return Object.hasOwn(TRANSIENT, code) ? TRANSIENT[code] : undefined;
}

/** Twilio's answer to a request (status, its `code`, its Retry-After) as CarrierRejected or CarrierUnavailable. */
export function classifyTwilioAnswer(status: number, code: number | string | undefined, retryAfter?: number): CarrierRejected | CarrierUnavailable {
  const twilioCode = code === undefined || code === null || code === '' ? undefined : String(code);
  if (status === 429 || status >= 500 || (twilioCode && isTwilioTransientCode(twilioCode)) || status === 408) {
    return new CarrierUnavailable(`Twilio is throttling or unavailable (HTTP ${status}${twilioCode ? `, error ${twilioCode}` : ''})`, retryAfter);
  }
  const reported = twilioCode ?? `http-${status}`;
  const words = (twilioCode && Object.hasOwn(FINAL, twilioCode) && FINAL[twilioCode]) || `Twilio refused the message (HTTP ${status})`;
  return new CarrierRejected(reported, words, isTwilioOptOutCode(twilioCode));
}
