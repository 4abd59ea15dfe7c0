/*
 * The keywords carriers require us to honour, matched against the whole text, trimmed, in any case:
 * "stop" opts the number out, " Start " back in; "stop please" is an ordinary reply.
 */

export type Keyword = { kind: 'optOut' | 'optIn' | 'help'; word: string };

const KEYWORDS: Record<Keyword['kind'], readonly string[]> = {
  optOut: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT'],
  optIn: ['START', 'UNSTOP', 'YES'],
  help: ['HELP', 'INFO'],
};

export function keywordOf(text: string): Keyword | null {
  const word = text.trim().toUpperCase();
  for (const [kind, words] of Object.entries(KEYWORDS) as [Keyword['kind'], readonly string[]][]) {
    if (words.includes(word)) return { kind, word };
  }
  return null;
}

/** Our answers: the carriers (and the CTIA) require one confirmation of an opt-out and of an opt-in. */
export const OPT_OUT_CONFIRMATION = 'You are unsubscribed and will receive no more messages from this number. Reply START to resubscribe.';
export const OPT_IN_CONFIRMATION = 'You are resubscribed and may receive messages from this number again. Reply STOP to unsubscribe.';
