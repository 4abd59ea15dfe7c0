import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { NamedKey } from '../config/key-list';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

type PayloadKey = NamedKey;

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

/**
 * AES-256-GCM over each whole payload (its metadata too), so Temporal's history, visibility and the
 * worker's error logs hold only ciphertext. The first key encrypts; every key decrypts, found by the key
 * id written beside the ciphertext, so a new key can go first while old histories stay readable. The
 * key id is the additional authenticated data: a ciphertext cannot be replayed under another id.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: readonly PayloadKey[]) {
    if (!keys.length) throw new Error('AesGcmPayloadCodec needs at least one key');
    this.byId = new Map(keys.map(({ id, key }) => [id, key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys[0];
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(id));
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { [METADATA_ENCODING_KEY]: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(id) }, data: sealed };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      // Payloads written before encryption was turned on stay readable as they are.
      if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
      const id = text(payload.metadata?.[KEY_ID_METADATA]) ?? '';
      const key = this.byId.get(id);
      if (!key) throw new ValueError(`Payload encrypted with unknown key id "${id}": add it to TEMPORAL_PAYLOAD_KEYS`);
      const sealed = Buffer.from(payload.data ?? new Uint8Array());
      if (sealed.length < IV_BYTES + TAG_BYTES) throw new ValueError('Encrypted payload is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES)).setAAD(Buffer.from(id));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new ValueError(`Encrypted payload does not authenticate under key id "${id}"`);
      }
      return temporal.api.common.v1.Payload.decode(plain) as Payload;
    });
  }
}
