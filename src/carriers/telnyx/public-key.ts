import { createPublicKey } from 'node:crypto';

/**
 * TELNYX_PUBLIC_KEY as the SDK's verifier takes it: the base64 of the raw 32-byte Ed25519 key, which is
 * how the Mission Control Portal shows it (Account Settings → Keys & Credentials → Public Key). A PEM
 * (SPKI) of the same key is accepted too. Anything else stops the boot: a key that cannot verify would
 * refuse every receipt.
 */
export function telnyxPublicKey(configured: string): string {
  const value = configured.trim();
  if (value.includes('-----BEGIN')) {
    try {
      const key = createPublicKey(value.replace(/\\n/g, '\n'));
      if (key.asymmetricKeyType !== 'ed25519') throw new Error('not Ed25519');
      return Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
    } catch {
      throw new Error('Invalid configuration: TELNYX_PUBLIC_KEY is a PEM but not an Ed25519 public key');
    }
  }
  if (!/^[A-Za-z0-9+/]{43}=$/.test(value) || Buffer.from(value, 'base64').length !== 32) {
    throw new Error('Invalid configuration: TELNYX_PUBLIC_KEY must be the base64 Ed25519 public key from the Telnyx portal (32 bytes)');
  }
  return value;
}
