import { createPublicKey } from 'node:crypto';

/**
 * TELNYX_PUBLIC_KEY as the SDK's verifier takes it: the base64 of the raw 32-byte Ed25519 key, which is
 * how the Mission Control Portal shows it (Account Settings → Keys & Credentials → Public Key). A PEM
 * (SPKI) of the same key is accepted too. Anything else stops the boot: a key that cannot verify would
 * refuse every receipt.
 */
export function telnyxPublicKey(configured: string): string {
  const problem = telnyxPublicKeyProblem(configured);
  if (problem) throw new Error(`Invalid configuration: TELNYX_PUBLIC_KEY ${problem}`);
  return normalized(configured)!;
}

/** What is wrong with a Telnyx public key, in words (for the env and for a business's own credentials), or undefined. */
export function telnyxPublicKeyProblem(value: string): string | undefined {
  if (normalized(value) !== undefined) return undefined;
  return value.includes('-----BEGIN') ? 'is a PEM but not an Ed25519 public key' : 'must be the base64 Ed25519 public key from the Telnyx portal (32 bytes)';
}

function normalized(configured: string): string | undefined {
  const value = configured.trim();
  if (value.includes('-----BEGIN')) {
    try {
      const key = createPublicKey(value.replace(/\\n/g, '\n'));
      return key.asymmetricKeyType === 'ed25519' ? Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url').toString('base64') : undefined;
    } catch {
      return undefined;
    }
  }
  return /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32 ? value : undefined;
}
