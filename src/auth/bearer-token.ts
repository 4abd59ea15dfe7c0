import { createPublicKey, createSecretKey } from 'node:crypto';
import jwt, { type Algorithm } from 'jsonwebtoken';
import type { AuthConfig } from '../config/auth';
import { hasUnstorableCharacters } from '../db/errors';

export type { AuthConfig };

export interface Caller {
  userId: string;
  /** The businesses the token names in the JWT_BUSINESS_CLAIM claim; absent when no claim is configured. */
  businesses?: readonly string[];
  /** With JWT_BUSINESS_CLAIM, the token carries no claim of that name at all (the 403 says so). */
  businessClaimMissing?: boolean;
}

/** Why a bearer token is refused, in the words the API's 401 shows. */
export class InvalidToken extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidToken';
  }
}

const unauthorized = (message: string) => new InvalidToken(message);

const HMAC_ALGORITHMS: Algorithm[] = ['HS256'];
const PUBLIC_KEY_ALGORITHMS: Algorithm[] = ['RS256', 'ES256'];
/** How far ahead of this server's clock an issuer's may be when a token's remaining life is measured against JWT_MAX_AGE. */
const CLOCK_SKEW_SECONDS = 60;
/** The subject is part of Temporal workflow ids, which the server caps at 1000 characters. */
export const MAX_SUBJECT_LENGTH = 200;

/**
 * The token's `alg`, or undefined for a token not to verify at all. A `crit` header lists extensions
 * the recipient must understand or reject the token (RFC 7515 §4.1.11): this service understands none.
 * jwt.decode throws, rather than returning null, on a JWT-typed header over a non-JSON payload.
 */
function headerAlgorithm(token: string): Algorithm | undefined {
  try {
    const header = jwt.decode(token, { complete: true })?.header;
    if (!header || Object.hasOwn(header, 'crit')) return undefined;
    return header.alg as Algorithm;
  } catch {
    return undefined;
  }
}

/**
 * JWT_MAX_AGE: a token living longer than the maximum by `exp` − `iat` is refused, and so is one without
 * `iat`. Its remaining life (`exp` − now) counts too, so an `iat` set in the future cannot stretch it.
 */
function checkLifetime(exp: number, iat: unknown, maxAgeSeconds: number): void {
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw unauthorized('Token has no issue time (iat)');
  const remaining = exp - Date.now() / 1000;
  if (exp - iat > maxAgeSeconds || remaining > maxAgeSeconds + CLOCK_SKEW_SECONDS) {
    throw unauthorized(`Token lives longer than the maximum of ${maxAgeSeconds} seconds`);
  }
}

/** Verifies the bearer token (an `Authorization` header's value) and returns its caller; throws InvalidToken otherwise. */
export function createTokenVerifier(config: AuthConfig) {
  // Key objects built once: jsonwebtoken would otherwise parse the secret or the PEM on every request.
  const secretKey = config.secret ? createSecretKey(Buffer.from(config.secret, 'utf8')) : undefined;
  const publicKey = config.publicKey ? createPublicKey(config.publicKey) : undefined;
  return (authorization: string | undefined): Caller => {
    const match = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(authorization ?? '');
    if (!match) throw unauthorized('Missing or malformed bearer token');
    const token = match[1];
    const alg = headerAlgorithm(token);
    const key = alg && HMAC_ALGORITHMS.includes(alg) ? secretKey : alg && PUBLIC_KEY_ALGORITHMS.includes(alg) ? publicKey : undefined;
    if (!alg || !key) throw unauthorized('Invalid token');
    let payload: jwt.JwtPayload | string;
    try {
      payload = jwt.verify(token, key, {
        algorithms: [alg],
        issuer: config.issuer,
        audience: config.audience,
      }) as jwt.JwtPayload;
    } catch (error) {
      throw unauthorized(error instanceof jwt.TokenExpiredError ? 'Token expired' : 'Invalid token');
    }
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || !payload.sub) throw unauthorized('Token has no subject');
    if (hasUnstorableCharacters(payload.sub)) throw unauthorized('Token subject contains NUL characters or unpaired surrogates');
    if (payload.sub.length > MAX_SUBJECT_LENGTH) throw unauthorized(`Token subject is longer than ${MAX_SUBJECT_LENGTH} characters`);
    if (typeof payload.exp !== 'number') throw unauthorized('Token has no expiry');
    const foreign = audiencesOf(payload.aud).find((aud) => config.refusedAudiences?.includes(aud));
    if (foreign !== undefined) throw unauthorized(`Token is also for another service (aud ${foreign}): use a token made for this one alone`);
    if (config.maxAgeSeconds !== undefined) checkLifetime(payload.exp, payload.iat, config.maxAgeSeconds);
    if (config.businessClaim === undefined) return { userId: payload.sub };
    const claim = payload[config.businessClaim];
    return { userId: payload.sub, businesses: businessesOf(claim), ...(claim === undefined && { businessClaimMissing: true }) };
  };
}

const audiencesOf = (aud: unknown): string[] => (typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : []);

/**
 * The business names a claim holds: a string, or an array of strings (as identity providers issue a
 * user's several organisations). Anything else names none, and a token naming none acts for no business.
 */
function businessesOf(claim: unknown): readonly string[] {
  if (typeof claim === 'string') return [claim];
  return Array.isArray(claim) ? claim.filter((name): name is string => typeof name === 'string') : [];
}

/**
 * Whether the caller may act for `business`: always without JWT_BUSINESS_CLAIM; with it, only for a business
 * its token names, compared exactly, as the path segment is (`Acme` and `acme` are two businesses).
 */
export function mayActFor(caller: Caller, business: string): boolean {
  return caller.businesses === undefined || caller.businesses.includes(business);
}
