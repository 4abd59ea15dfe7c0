import { CarrierRejected, CarrierUnavailable } from '../types';

/*
 * Twilio's documented error codes (twilio.com/docs/api/errors), in our own words: what Twilio answered
 * is never kept, since its message may quote the phone number or the text. Codes that say "not now"
 * (throttled, a queue full, Twilio itself failing) are retried; every other refusal is final.
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
  '21660': 'The sender number does not belong to this Twilio account',
  '21701': 'The messaging service is not valid',
  '21703': 'The messaging service has no sender for this recipient',
  '30003': 'The recipient\'s handset is unreachable',
  '30004': 'The recipient blocked this sender',
  '30005': 'The recipient number is unknown or no longer in service',
  '30006': 'The recipient number is a landline or cannot receive texts',
  '30007': 'The recipient\'s carrier filtered the text (spam or policy)',
};

/** Throttled, a full queue, or Twilio failing: worth another attempt. */
const TRANSIENT = new Set(['20429', '20500', '20503', '21611', '30001', '30002', '30008']);

/** The recipient unsubscribed: the refusal records an opt-out too. */
const OPT_OUT = new Set(['21610']);

/** Twilio's code for a recipient who unsubscribed from this sender. */
export const isTwilioOptOutCode = (code: string | undefined) => code !== undefined && OPT_OUT.has(code);

/** What a Twilio error code means, in our words (for receipts' codes too). */
export function twilioCodeMeaning(code: string): string | undefined {
  return Object.hasOwn(FINAL, code) ? FINAL[code] : undefined;
}


/** Twilio's answer to a request (status, its `code`, its Retry-After) as CarrierRejected or CarrierUnavailable. */
export function classifyTwilioAnswer(status: number, code: number | string | undefined, retryAfter?: number): CarrierRejected | CarrierUnavailable {
  const twilioCode = code === undefined || code === null || code === '' ? undefined : String(code);
  if (status === 429 || status >= 500 || (twilioCode && TRANSIENT.has(twilioCode)) || status === 408) {
    return new CarrierUnavailable(`Twilio is throttling or unavailable (HTTP ${status}${twilioCode ? `, error ${twilioCode}` : ''})`, retryAfter);
  }
  const reported = twilioCode ?? `http-${status}`;
  const words = (twilioCode && FINAL[twilioCode]) ?? `Twilio refused the message (HTTP ${status})`;
  return new CarrierRejected(reported, words, twilioCode !== undefined && OPT_OUT.has(twilioCode));
}
