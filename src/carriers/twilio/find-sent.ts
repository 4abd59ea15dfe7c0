import type { MessageInstance } from 'twilio/lib/rest/api/v2010/account/message';
import type { CarrierSend } from '../types';

/*
 * Which of Twilio's records of messages to the recipient is our message's copy, after a crash (Twilio
 * takes no idempotency key and keeps no reference of ours). An outbound message created since the
 * dispatch (less the clock skew) whose body is our text. A template's body is Twilio's rendering of the
 * content, which our own rendering may not match word for word: the copy is then one whose body carries
 * every value of our variables. The newest such copy wins.
 */

/** How far a lookup after a crash reaches back before the dispatch time (clocks differ). */
export const CLOCK_SKEW_MS = 60_000;

function sameContent(candidate: MessageInstance, message: CarrierSend): boolean {
  if (candidate.body === message.text) return true;
  const values = message.template?.variables.map((variable) => variable.value) ?? [];
  return values.length > 0 && values.every((value) => value !== '' && candidate.body?.includes(value));
}

export function sentCopy(listed: MessageInstance[], message: CarrierSend, messagingServiceSid: string | undefined): MessageInstance | undefined {
  const since = message.dispatchedAt.getTime() - CLOCK_SKEW_MS;
  return listed
    .filter((candidate) => candidate.direction?.startsWith('outbound') && candidate.dateCreated?.getTime() >= since && sameContent(candidate, message))
    .filter((candidate) => !messagingServiceSid || candidate.messagingServiceSid === messagingServiceSid)
    .sort((a, b) => b.dateCreated.getTime() - a.dateCreated.getTime())[0];
}
