import { Invalid } from '../errors';

const IDEMPOTENCY_KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** The `Idempotency-Key` header (messages and routing both take one): absent, or 1-255 printable ASCII characters. */
export function readIdempotencyKey(header: string | undefined): string | null {
  if (header === undefined) return null;
  const key = header.trim();
  if (!IDEMPOTENCY_KEY.test(key)) throw new Invalid('Invalid Idempotency-Key: must be 1-255 printable ASCII characters');
  return key;
}
