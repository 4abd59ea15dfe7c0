import { generateNamedKey, parseKeyList, type NamedKey } from './key-list';

export type PayloadKey = NamedKey;

/** `TEMPORAL_PAYLOAD_KEYS`: `2026-11:base64,2026-05:base64`; throws a message naming what is wrong. */
export function parsePayloadKeys(value: string): PayloadKey[] {
  return parseKeyList('TEMPORAL_PAYLOAD_KEYS', value);
}

/** A new key in the form TEMPORAL_PAYLOAD_KEYS takes. */
export const generatePayloadKey = generateNamedKey;
