import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/* How each CRM's inbound requests prove where they come from, checked in constant time. */

/** HubSpot refuses to trust a v3 signature older than this, and so do we. */
export const HUBSPOT_SIGNATURE_MAX_AGE_MS = 5 * 60 * 1000;

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/** HubSpot's v3 signature: base64(HMAC-SHA256(client secret, method + URI + body + timestamp)). */
export function hubspotSignatureV3(clientSecret: string, method: string, uri: string, rawBody: Buffer, timestamp: string): string {
  return createHmac('sha256', clientSecret).update(Buffer.concat([Buffer.from(method + uri, 'utf8'), rawBody, Buffer.from(timestamp, 'utf8')])).digest('base64');
}

/**
 * Whether a HubSpot request is signed with the app's client secret within the last 5 minutes (a
 * timestamp more than 5 minutes ahead is refused too). The URI is the full one HubSpot called.
 */
export function verifyHubspotSignature(
  clientSecret: string,
  request: { method: string; uri: string; rawBody: Buffer; signature: string | undefined; timestamp: string | undefined },
  now = Date.now(),
): boolean {
  const { signature, timestamp } = request;
  if (!signature || !timestamp || !/^\d{1,16}$/.test(timestamp)) return false;
  if (Math.abs(now - Number(timestamp)) > HUBSPOT_SIGNATURE_MAX_AGE_MS) return false;
  const expected = hubspotSignatureV3(clientSecret, request.method, request.uri, request.rawBody, timestamp);
  return sameBytes(Buffer.from(expected, 'utf8'), Buffer.from(signature, 'utf8'));
}

/** HTTP Basic credentials (Pipedrive's webhooks), compared in constant time. */
export function verifyBasicAuth(authorization: string | undefined, user: string, password: string): boolean {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1], 'base64');
  const expected = Buffer.from(`${user}:${password}`, 'utf8');
  // Compare fixed-size digests so the length of the secret does not leak either.
  const digest = (value: Buffer) => createHmac('sha256', 'basic-auth').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** A new secret for a connector's inbound URL: 256 random bits, URL-safe. */
export const newInboundToken = (): string => randomBytes(32).toString('base64url');

/** What is stored of an inbound URL's secret: its SHA-256 (hex). The secret is random, so no salt or slow hash is needed. */
export const inboundTokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Whether `given` is the secret whose hash is stored, compared in constant time (no stored hash: never). */
export function verifyInboundToken(given: string | undefined, storedHash: string | null | undefined): boolean {
  const expected = Buffer.from(storedHash ?? '', 'hex');
  const actual = createHash('sha256').update(given ?? '', 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual) && given !== undefined;
}
