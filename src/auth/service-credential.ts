import { timingSafeEqual } from 'node:crypto';
import { createTokenVerifier, type AuthConfig } from './bearer-token';

/** A credential for a route outside the business API (the codec, the operator API): a bearer secret, or a JWT with its own audience. */
export interface ServiceCredentials {
  token?: string;
  jwt?: AuthConfig;
}

/** Who presented a service credential: the secret's holder, or the JWT's subject. */
export type ServiceCaller = { credential: 'token' } | { credential: 'jwt'; subject: string };

/** Compared in constant time, so the answer's timing tells nothing of the secret. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Checks a bearer value against the secret, then as a JWT for the service's audience; undefined when neither holds. */
export function serviceCredentialCheck(credentials: ServiceCredentials): (bearer: string) => ServiceCaller | undefined {
  const verifyJwt = credentials.jwt && createTokenVerifier(credentials.jwt);
  return (bearer) => {
    if (credentials.token && sameSecret(bearer, credentials.token)) return { credential: 'token' };
    if (!verifyJwt) return undefined;
    try {
      return { credential: 'jwt', subject: verifyJwt(`Bearer ${bearer}`).userId };
    } catch {
      return undefined;
    }
  };
}

/** The bearer value of an Authorization header, or undefined. */
export const bearerOf = (authorization: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
