/*
 * How a text travels as SMS (3GPP TS 23.038): GSM-7 when every character is in the GSM 03.38 default
 * alphabet or its extension table, else UCS-2; and how many parts it takes.
 */

export type SmsEncoding = 'GSM-7' | 'UCS-2';

/** The default alphabet, one septet each (the escape code 0x1B excepted: it introduces the extension table). */
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);

/** The extension table's characters: the escape septet and the character's own, two septets each. */
const GSM_EXTENSION = new Set('\f^{}\\[~]|€');

const LIMITS = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
} as const;

export interface SmsShape {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number;
  segments: number;
}

/**
 * The text's encoding and parts. A text over one part is split into parts of 153 septets (GSM-7) or 67
 * code units (UCS-2), the rest of each part carrying the concatenation header; as carriers do, an
 * extension character (escape + character) or a surrogate pair (an emoji) is never split between two
 * parts, so such a part may hold one unit less.
 */
export function smsShape(text: string): SmsShape {
  const characters = [...text];
  const gsm = characters.every((c) => GSM_BASIC.has(c) || GSM_EXTENSION.has(c));
  const encoding: SmsEncoding = gsm ? 'GSM-7' : 'UCS-2';
  const costs = characters.map((c) => (gsm ? (GSM_EXTENSION.has(c) ? 2 : 1) : c.length));
  const units = costs.reduce((sum, cost) => sum + cost, 0);
  const { single, part } = LIMITS[encoding];
  if (units <= single) return { encoding, units, segments: 1 };

  let segments = 1;
  let used = 0;
  for (const cost of costs) {
    if (used + cost > part) {
      segments++;
      used = 0;
    }
    used += cost;
  }
  return { encoding, units, segments };
}
