/*
 * RCS with the carrier's own SMS fallback (docs/design.md, "RCS with SMS fallback"): suggested replies as
 * every carrier takes them (Google's RBM: a reply chip's text at most 25 characters, its postback data at
 * most 2,048; Twilio's quick-reply content: at most 10 actions, an id of at most 200), and which channel
 * delivered a message.
 */

/** A suggested reply: the chip's text, and what comes back when the client taps it (default: the text). */
export interface Suggestion {
  text: string;
  postback_data?: string;
}

export const MAX_SUGGESTIONS = 10;
export const MAX_SUGGESTION_TEXT = 25;
export const MAX_POSTBACK_DATA = 200;

/** The channel that delivered an RCS message: RCS itself, or the SMS/MMS the carrier fell back to. */
export const DELIVERED_CHANNELS = ['rcs', 'sms'] as const;
export type DeliveredChannel = (typeof DELIVERED_CHANNELS)[number];

/** A suggestion's postback data: its own, else its text (Twilio's action id and RBM's postback are required). */
export const postbackOf = (suggestion: Suggestion): string => suggestion.postback_data ?? suggestion.text;

/** A suggestion tap as an inbound message carries it: the chip's text and its postback data. */
export interface SuggestionTap {
  text: string;
  postbackData: string;
}

export const NO_RCS_SENDER = (sender: string) =>
  `No RCS sender: ${sender} carries no RCS; register a business number whose channels include rcs, with its rcs_agent`;
