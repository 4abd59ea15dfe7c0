import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Scope } from '../../db/scope';

/*
 * A feed cursor is the last event's `seq` sealed with AES-256-GCM under the cursor key, bound to the
 * business and user it was issued to: the caller cannot read the sequence (which would show the event
 * volume of every tenant), nor forge one, and a cursor taken to another user or business is refused.
 */

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEQ_BYTES = 8;
const MAX_SEQ = 2n ** 63n - 1n;

const boundTo = (scope: Scope) => Buffer.from(`${scope.business}\u0000${scope.ownerId}`, 'utf8');

export function sealCursor(key: Buffer, scope: Scope, seq: bigint): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(boundTo(scope));
  const plain = Buffer.alloc(SEQ_BYTES);
  plain.writeBigUInt64BE(seq);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The sequence a cursor of this caller holds; undefined for anything else. */
export function openCursor(key: Buffer, scope: Scope, raw: string): bigint | undefined {
  const bytes = Buffer.from(raw, 'base64url');
  if (bytes.length !== 1 + IV_BYTES + SEQ_BYTES + TAG_BYTES || bytes[0] !== VERSION || bytes.toString('base64url') !== raw) return legacyCursor(raw);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + IV_BYTES)).setAAD(boundTo(scope));
    decipher.setAuthTag(bytes.subarray(1 + IV_BYTES + SEQ_BYTES));
    const plain = Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + SEQ_BYTES)), decipher.final()]);
    const seq = plain.readBigUInt64BE();
    return seq <= MAX_SEQ ? seq : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The readable cursors (`e<seq>`, base64url) issued before cursors were sealed: still taken, so a
 * poller that kept one reads on rather than from the start. They tell the caller nothing new.
 */
function legacyCursor(raw: string): bigint | undefined {
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  if (!/^e\d{1,19}$/.test(text)) return undefined;
  const seq = BigInt(text.slice(1));
  return seq <= MAX_SEQ ? seq : undefined;
}
