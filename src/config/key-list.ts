import { randomBytes } from 'node:crypto';

/** An AES-256 key and the id written beside what it encrypts, so a reader knows which key to use. */
export interface NamedKey {
  id: string;
  /** 32 bytes: AES-256. */
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
export const KEY_LIST_FORMAT = 'comma-separated id:key pairs, each key 32 bytes in base64 (`openssl rand -base64 32`), the encrypting key first';

/**
 * A key list as TEMPORAL_PAYLOAD_KEYS and SECRETS_KEY take it: `2026-11:base64,2026-05:base64`, the
 * first encrypting and every one decrypting. Throws a message naming the variable and what is wrong.
 */
export function parseKeyList(variable: string, value: string): NamedKey[] {
  const keys = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry, index) => {
      const separator = entry.indexOf(':');
      const id = separator > 0 ? entry.slice(0, separator) : '';
      if (!KEY_ID.test(id)) throw new Error(`${variable} entry ${index + 1} has no valid key id (letters, digits, . _ -): expected ${KEY_LIST_FORMAT}`);
      const encoded = entry.slice(separator + 1);
      const key = Buffer.from(encoded, 'base64');
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length !== 32) throw new Error(`${variable} key "${id}" is not 32 bytes of base64: expected ${KEY_LIST_FORMAT}`);
      return { id, key };
    });
  if (!keys.length) throw new Error(`${variable} is empty: expected ${KEY_LIST_FORMAT}`);
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new Error(`${variable} names a key id twice`);
  return keys;
}

/** A new key in the form a key list takes: `id:base64`. */
export function generateNamedKey(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}
