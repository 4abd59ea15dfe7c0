import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { NamedKey } from '../config/key-list';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^v1:([A-Za-z0-9._-]{1,64}):([A-Za-z0-9+/]+={0,2}):([A-Za-z0-9+/]+={0,2})$/;

/** A stored secret this process cannot open: its key is not in SECRETS_KEY, or it was altered. The message never holds the secret. */
export class UnreadableSecret extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableSecret';
  }
}

/**
 * Secrets kept in the database (webhook signing secrets; carrier and CRM credentials to come), sealed
 * with AES-256-GCM under SECRETS_KEY. The stored form is `v1:<key id>:<iv>:<ciphertext and tag>` (base64),
 * so a reader finds the key and a rotation finds what an older key sealed. The first key seals; every key
 * opens. The version, the key id and the purpose (what the secret is for, e.g. `webhook-secret`) are the
 * additional authenticated data: a sealed value moved to another purpose or relabelled does not open.
 */
export class SecretBox {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: readonly NamedKey[]) {
    if (!keys.length) throw new Error('SecretBox needs at least one key');
    this.byId = new Map(keys.map(({ id, key }) => [id, key]));
  }

  /** The id of the key that seals. */
  get currentKeyId(): string {
    return this.keys[0].id;
  }

  seal(plain: string, purpose: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(additionalData(id, purpose));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}:${id}:${iv.toString('base64')}:${sealed.toString('base64')}`;
  }

  open(stored: string, purpose: string): string {
    const match = SEALED.exec(stored);
    if (!match) throw new UnreadableSecret('Stored secret is not in the sealed form v1:<key id>:<iv>:<ciphertext>');
    const [, id, ivText, sealedText] = match;
    const key = this.byId.get(id);
    if (!key) throw new UnreadableSecret(`Stored secret is sealed with unknown key id "${id}": add it to SECRETS_KEY`);
    const iv = Buffer.from(ivText, 'base64');
    const sealed = Buffer.from(sealedText, 'base64');
    if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES) throw new UnreadableSecret('Stored secret is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(additionalData(id, purpose));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new UnreadableSecret(`Stored secret does not authenticate under key id "${id}"`);
    }
  }

  /** Whether `stored` is in the sealed form (rather than a plain value from before encryption). */
  isSealed(stored: string): boolean {
    return SEALED.test(stored);
  }

  /**
   * A keyed digest of `value` for `purpose` under each key, the sealing key's first (`<key id>:<HMAC-SHA256,
   * base64url>`): what remembers a value without keeping it. One made under any key of SECRETS_KEY is
   * among them, so a lookup finds it across a rotation while its key is listed.
   */
  digests(value: string, purpose: string): string[] {
    return this.keys.map(({ id, key }) => `${id}:${createHmac('sha256', key).update(`${VERSION}:${purpose}:`).update(value, 'utf8').digest('base64url')}`);
  }

  /** Whether `stored` is sealed under the key that seals now: nothing for a rotation to do. */
  isCurrent(stored: string): boolean {
    return SEALED.exec(stored)?.[1] === this.currentKeyId;
  }
}

const additionalData = (keyId: string, purpose: string) => Buffer.from(`${VERSION}:${keyId}:${purpose}`, 'utf8');
